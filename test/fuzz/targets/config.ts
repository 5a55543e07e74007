// Fuzz target: loading boxbot.config.json. Whatever the file holds, loadConfig either returns a
// config or throws one ConfigError naming what is wrong; the JSONC stripper keeps every
// character's position (so JSON.parse's error positions point into the file).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { starterConfig } from '../../../src/cli/starter-config.ts';
import { stripJsonComments } from '../../../src/config/jsonc.ts';
import { ConfigError, loadConfig } from '../../../src/config/load.ts';
import { tempDir } from '../../helpers.ts';
import type { FuzzTarget } from '../harness.ts';
import { type Json, mutated } from '../inputs.ts';

/** Configs as the README and the docs show them. */
const CONFIGS: Json[] = [
  {
    dataDir: './data',
    model: 'anthropic/claude-sonnet-5-5',
    fallbackModel: 'openai/gpt-5.4',
    providers: { ollama: { type: 'openai-compatible', baseURL: 'http://127.0.0.1:11434/v1' } },
    http: { host: '127.0.0.1', port: 8787 },
    gateway: { concurrency: 16, replyToStrangers: true, runTimeoutMs: 600000, maxTurns: 30 },
    sandbox: {
      network: { allow: [], block: ['private'] },
      limits: { timeoutMs: 30000, maxMemoryMb: 256, fuel: 50000000000, maxWriteMb: 64 },
    },
    channels: {
      telegram: {
        access: 'full',
        allowFrom: ['4242'],
        requireMention: true,
        chats: { '-100123': { access: 'read-only' } },
      },
      discord: { access: 'read-only', channels: { '987654': { access: 'full', tools: { deny: ['bash'] } } } },
      slack: { mode: 'socket', channels: {} },
      web: { enabled: true },
    },
  },
  {
    mcp: {
      servers: {
        github: {
          url: 'https://mcp.example.com/mcp',
          headersFromEnv: { Authorization: 'GITHUB_MCP_AUTH' },
          level: 'ReadOnly',
          tools: { deny: ['delete_repo'] },
        },
        notes: { command: 'npx', args: ['my-notes-mcp'], env: { NOTES_TOKEN: 'MY_NOTES_TOKEN' } },
      },
    },
    channels: { telegram: { budget: { userUsdPerDay: 1 }, approvals: { levels: ['Write'], afterUntrusted: true } } },
  },
];

const STARTER = starterConfig('./boxbot.schema.json');

/** Characters that change how JSONC reads, for edits of the starter file. */
const JSONC_PIECES = ['/', '//', '/*', '*/', '*', ',', '"', '\\', '\\"', '{', '}', '[', ']', ':', '\n', ' ', '\u2028'];

/** The commented starter file with a few characters inserted, deleted or replaced. */
const editedStarter = fc
  .array(
    fc.record({
      at: fc.nat(),
      cut: fc.integer({ min: 0, max: 3 }),
      put: fc.oneof(fc.constantFrom(...JSONC_PIECES), fc.string({ maxLength: 3 })),
    }),
    { minLength: 1, maxLength: 4 },
  )
  .map((edits) => {
    let s = STARTER;
    for (const e of edits) {
      const at = e.at % (s.length + 1);
      s = s.slice(0, at) + e.put + s.slice(at + e.cut);
    }
    return s;
  });

/** Mutated configs as JSON, sometimes with comments and trailing commas as a person adds them. */
const plausible = fc.tuple(mutated(CONFIGS), fc.boolean()).map(([config, commented]) => {
  const json = JSON.stringify(config, null, 2) ?? 'null';
  return commented ? json.replace(/,\n/g, ', // note\n').replace(/\n(\s*)}/g, ',\n$1/* end */ }') : json;
});

let dir: string | undefined;

/** Config files: the commented starter edited, mutated real configs, and any text at all. */
export const configLoad: FuzzTarget<string> = {
  name: 'config load',
  input: fc.oneof(
    { weight: 3, arbitrary: editedStarter },
    { weight: 4, arbitrary: plausible },
    { weight: 1, arbitrary: fc.string({ maxLength: 200, unit: 'binary' }) },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
  ),
  check(text) {
    const stripped = stripJsonComments(text);
    assert.equal(stripped.length, text.length, 'the stripper moved characters');
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '\n') assert.equal(stripped[i], '\n', 'a newline was blanked');
    }
    dir ??= tempDir('boxbot-fuzz-config-');
    const file = join(dir, 'boxbot.config.json');
    writeFileSync(file, text);
    try {
      const loaded = loadConfig(file, dir, { env: { HOME: dir } });
      assert.equal(typeof loaded.dataDir, 'string');
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
    }
  },
};
