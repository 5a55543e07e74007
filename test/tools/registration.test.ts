// Every bundled tool registers from its own help: the right name, level, network declaration,
// keywords and input schema, and no component imports more than its tools declare.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { importsExceedDeclaration, type JsonSchema } from '../../src/agent/tools/index.ts';
import { root } from '../helpers.ts';
import { TOOL_NAMES, toolHarness } from './helpers.ts';

const h = toolHarness();
after(() => h.close());

/** name → [level, required properties, some optional properties with their schema type]. */
const EXPECTED: Record<string, { level: string; required: string[]; optional: Record<string, JsonSchema['type']> }> = {
  read: { level: 'ReadOnly', required: ['file_path'], optional: { offset: 'integer', limit: 'integer' } },
  glob: {
    level: 'ReadOnly',
    required: ['pattern'],
    optional: { path: 'string', limit: 'integer', ignore_case: 'boolean' },
  },
  grep: {
    level: 'ReadOnly',
    required: ['pattern'],
    optional: {
      path: 'string',
      include: 'array',
      output_mode: 'string',
      context: 'integer',
      after_context: 'integer',
      before_context: 'integer',
      ignore_case: 'boolean',
      limit: 'integer',
    },
  },
  ls: {
    level: 'ReadOnly',
    required: [],
    optional: { path: 'string', depth: 'integer', ignore: 'array', no_hidden: 'boolean' },
  },
  write: { level: 'Write', required: ['file_path', 'content'], optional: {} },
  edit: { level: 'Write', required: ['file_path', 'old_string', 'new_string'], optional: { replace_all: 'boolean' } },
  bash: { level: 'Execute', required: ['command'], optional: { workdir: 'string' } },
  web_fetch: {
    level: 'ReadOnly',
    required: ['url'],
    optional: {
      format: 'string',
      offset: 'integer',
      limit: 'integer',
      max_bytes: 'integer',
      max_redirects: 'integer',
      header: 'array',
    },
  },
  web_search: { level: 'ReadOnly', required: ['query'], optional: { count: 'integer' } },
  js_exec: { level: 'None', required: ['code'], optional: {} },
};

describe('bundled tools: registration from their own help', () => {
  for (const name of TOOL_NAMES) {
    it(`${name} registers with its level, about, keywords and input schema`, async () => {
      const { spec } = await h.tool(name);
      const want = EXPECTED[name]!;
      assert.equal(spec.name, name);
      assert.equal(spec.permissionLevel, want.level);
      assert.ok(spec.about.length > 10, 'a one-line about');
      assert.ok(spec.longAbout.length > 200, 'a long description a model can use');
      assert.ok(spec.keywords.length >= 4, `keywords: ${spec.keywords.join(',')}`);
      assert.deepEqual(spec.notes, []);
      assert.equal(spec.inputSchema.type, 'object');
      assert.equal(spec.inputSchema.additionalProperties, false);
      assert.deepEqual([...(spec.inputSchema.required ?? [])].sort(), [...want.required].sort());
      for (const key of want.required)
        assert.ok(spec.inputSchema.properties?.[key]?.description, `${key} is described`);
      for (const [key, type] of Object.entries(want.optional)) {
        assert.equal(spec.inputSchema.properties?.[key]?.type, type, `${name}.${key} is ${type}`);
      }
      // The component's imports stay within what the tool declares.
      assert.equal(importsExceedDeclaration(spec.imports, spec.permissionLevel, spec.network), undefined);
    });
  }

  it('web_fetch and web_search declare Network: * and are the only tools importing wasi:http', async () => {
    const web = (name: string) => name === 'web_fetch' || name === 'web_search';
    for (const name of TOOL_NAMES) {
      const { spec } = await h.tool(name);
      const http = spec.imports.some((i) => i.startsWith('wasi:http/'));
      assert.equal(http, web(name), `${name} imports wasi:http: ${http}`);
      assert.deepEqual(spec.network, web(name) ? ['*'] : []);
      assert.ok(!spec.imports.some((i) => i.startsWith('wasi:sockets/')), `${name} imports no sockets`);
    }
  });

  it('enumerated and defaulted options reach the schema', async () => {
    const grep = (await h.tool('grep')).spec.inputSchema.properties!;
    assert.deepEqual(grep.output_mode?.enum, ['content', 'files_with_matches', 'count']);
    assert.equal(grep.output_mode?.default, 'files_with_matches');
    const fetch = (await h.tool('web_fetch')).spec.inputSchema.properties!;
    assert.deepEqual(fetch.format?.enum, ['markdown', 'text', 'html']);
    assert.equal((await h.tool('read')).spec.inputSchema.properties!.offset?.default, 1);
  });

  it('skill_js, which the web component also answers to, has no tool file: the model is never offered it', () => {
    const files = readdirSync(join(root, 'tools', 'dist')).filter((f) => f.endsWith('.wasm'));
    assert.deepEqual(files.map((f) => f.slice(0, -'.wasm'.length)).sort(), [...TOOL_NAMES].sort());
  });

  it('tools sharing a component still answer with their own help', async () => {
    const read = await h.tool('read');
    const write = await h.tool('write');
    assert.equal(read.spec.sha256, write.spec.sha256, 'read and write share the core component');
    assert.notEqual(read.spec.about, write.spec.about);
    assert.notEqual(read.spec.permissionLevel, write.spec.permissionLevel);
  });
});
