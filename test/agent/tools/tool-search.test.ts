// ToolSearch: the model finds tools by name, keyword or description among those it may use.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createToolSearch, type SearchableTool } from '../../../src/agent/tools/tool-search.ts';

const tool = (
  name: string,
  about: string,
  keywords: string[],
  level: SearchableTool['permissionLevel'] = 'ReadOnly',
): SearchableTool => ({
  name,
  about,
  keywords,
  permissionLevel: level,
  inputSchema: { type: 'object', properties: { [`${name}_arg`]: { type: 'string' } } },
});
const tools = [
  tool('read', 'Read a text file from the workspace, with line numbers', ['file', 'read', 'cat']),
  tool('grep', 'Search file contents with a regular expression', ['search', 'regex', 'find']),
  tool('web_fetch', 'Fetch a web page and return it as Markdown', ['web', 'http', 'url']),
  tool('write', 'Create or overwrite a file', ['file', 'write'], 'Write'),
  ...Array.from({ length: 40 }, (_, i) => tool(`noise_${i}`, `Unrelated helper number ${i}`, ['misc'])),
];

const run = async (input: Record<string, unknown>, visible = tools) => {
  const found: string[][] = [];
  const r = await createToolSearch(
    () => visible,
    (names) => found.push(names),
  ).run(input, {});
  return {
    ...r,
    found,
    parsed:
      r.isError || r.content.startsWith('no tool')
        ? undefined
        : (JSON.parse(r.content) as { name: string; inputSchema: unknown }[]),
  };
};

test('finds a tool by keyword and returns its input schema, ready to call', async () => {
  const r = await run({ query: 'http url' });
  assert.equal(r.parsed?.[0]?.name, 'web_fetch');
  assert.deepEqual(r.parsed?.[0]?.inputSchema, tools[2]!.inputSchema);
  assert.deepEqual(
    r.found,
    [r.parsed!.map((t) => t.name)],
    'found tools are reported so the loop can make them callable',
  );
});

test('finds by exact name first, and by words of the description', async () => {
  assert.equal((await run({ query: 'grep' })).parsed?.[0]?.name, 'grep');
  assert.equal((await run({ query: 'regular expression' })).parsed?.[0]?.name, 'grep');
  assert.equal((await run({ query: 'markdown page' })).parsed?.[0]?.name, 'web_fetch');
});

test('respects the limit and finds nothing for unrelated words', async () => {
  assert.equal((await run({ query: 'helper', limit: 3 })).parsed?.length, 3);
  const none = await run({ query: 'spaceship' });
  assert.equal(none.isError, false);
  assert.match(none.content, /no tool matches "spaceship"/);
});

test('searches only the tools the conversation may use', async () => {
  const readOnly = tools.filter((t) => t.permissionLevel !== 'Write');
  const r = await run({ query: 'overwrite file' }, readOnly);
  assert.ok(!r.parsed?.some((t) => t.name === 'write'));
});

test('an empty query is an error naming the field', async () => {
  const r = await run({ query: '  ' });
  assert.equal(r.isError, true);
  assert.match(r.content, /^query: /);
});
