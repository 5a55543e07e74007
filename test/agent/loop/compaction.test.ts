// Context compaction: old tool results become one-line summaries when the history grows past
// the tool-result budget or near the context window; text and the last turns stay whole.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { compact, estimateTokens } from '../../../src/agent/loop/compaction.ts';
import { createCostMeter } from '../../../src/agent/loop/cost-meter.ts';
import { type LoopOptions, runLoop } from '../../../src/agent/loop/run-loop.ts';
import { createToolSet } from '../../../src/agent/loop/tool-set.ts';
import type { AgentEvent } from '../../../src/agent/loop/types.ts';
import type { ContentPart, Message } from '../../../src/agent/types.ts';
import { builtin, noSandbox, noWasm, policy } from './helpers.ts';
import { callTools, reply, scriptedModel } from './scripted.ts';

const ask: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'read the four files' }] }];
const read = builtin('read', 'ReadOnly', async (input) => ({
  content: `contents of ${String(input.file_path)}\n${'.'.repeat(3000)}`,
  isError: false,
}));
const results = (m: Message[]) =>
  m
    .flatMap((x) => x.content)
    .filter((p): p is Extract<ContentPart, { type: 'tool-result' }> => p.type === 'tool-result');

function script() {
  return ['a', 'b', 'c', 'd']
    .map((f) => callTools([['read', { file_path: `${f}.txt` }, `id-${f}`]], `Reading ${f}.`))
    .concat([reply('All read.')]);
}

/** The four-file run in a read-only chat with `read` and free calls, under `o`; its provider holds the requests. */
async function readFour(t: TestContext, o: Partial<LoopOptions> = {}) {
  const provider = scriptedModel(t, script());
  const tools = createToolSet({ wasm: noWasm, builtins: [read], policy: policy('read-only'), sandbox: noSandbox });
  const meter = createCostMeter(() => 0);
  return { provider, r: await runLoop({ provider, model: 'm', system: '', messages: ask, tools, meter, ...o }) };
}

test('tool results past the character budget are summarized, keeping text and the last two turns', async (t) => {
  const events: AgentEvent[] = [];
  const { provider, r } = await readFour(t, { toolResultCharBudget: 7000, onEvent: (e) => events.push(e) });
  assert.equal(r.outcome, 'final');
  const last = provider.requests.at(-1)!.messages;
  const rs = results(last);
  assert.equal(rs.length, 4);
  assert.equal(
    rs[0]!.content,
    '[compacted] read(file_path="a.txt") returned 3,018 characters, removed to save context; first line: "contents ' +
      'of a.txt"',
  );
  assert.match(rs[1]!.content, /^\[compacted\] read\(file_path="b\.txt"\)/);
  assert.ok(rs[2]!.content.startsWith('contents of c.txt\n...'), 'the last two turns stay whole');
  assert.ok(rs[3]!.content.startsWith('contents of d.txt\n...'));
  const texts = last
    .flatMap((m) => m.content)
    .filter((p) => p.type === 'text')
    .map((p) => (p.type === 'text' ? p.text : ''));
  assert.deepEqual(texts, ['read the four files', 'Reading a.', 'Reading b.', 'Reading c.', 'Reading d.']);
  assert.ok(events.some((e) => e.type === 'compacted'));
  assert.equal(results(r.messages)[0]!.content, rs[0]!.content, 'the returned history is the compacted one');
});

test('nearing 80% of the context window compacts even under the character budget', async (t) => {
  const { provider, r } = await readFour(t, { contextWindow: 3000 });
  const rs = results(provider.requests.at(-1)!.messages);
  assert.match(rs[0]!.content, /^\[compacted\]/);
  assert.match(rs[3]!.content, /^contents of d\.txt/);
  assert.equal(r.outcome, 'final');
});

test('below both limits nothing is compacted', async (t) => {
  const { provider } = await readFour(t);
  assert.ok(results(provider.requests.at(-1)!.messages).every((p) => p.content.startsWith('contents of')));
});

test('estimateTokens counts characters / 4 and compact() leaves a short history alone', () => {
  const m: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(400) }] }];
  assert.equal(estimateTokens('y'.repeat(400), m, []), 200);
  assert.deepEqual(compact(m), { messages: m, removedChars: 0, results: 0 });
});

test("estimateTokens counts each tool's name, description and schema as JSON, every time it is asked", () => {
  const small = { name: 'ab', description: 'cd', inputSchema: { type: 'object' } };
  const big = { name: 'ab', description: 'cd', inputSchema: { type: 'object', properties: { p: { type: 'string' } } } };
  const chars = (t: typeof small) => t.name.length + t.description.length + JSON.stringify(t.inputSchema).length;
  assert.equal(estimateTokens('', [], [small]), Math.ceil(chars(small) / 4));
  assert.equal(estimateTokens('', [], [small]), Math.ceil(chars(small) / 4), 'asked again');
  assert.equal(estimateTokens('', [], [big]), Math.ceil(chars(big) / 4), 'another schema counts its own length');
  assert.equal(estimateTokens('', [], [small, big]), Math.ceil((chars(small) + chars(big)) / 4));
});

test('still near the window after shortening tool results, the model summarises the older turns', async (t) => {
  const long = (n: number): Message[] => [
    { role: 'user', content: [{ type: 'text', text: `question ${n} ${'x'.repeat(2000)}` }] },
    { role: 'assistant', content: [{ type: 'text', text: `answer ${n}` }] },
  ];
  const history = [...long(1), ...long(2), ...long(3), ...ask];
  const provider = scriptedModel(t, [reply('The user asked three long questions.'), reply('Done.')]);
  const events: AgentEvent[] = [];
  const tools = createToolSet({ wasm: noWasm, builtins: [], policy: policy('read-only'), sandbox: noSandbox });
  const r = await runLoop({
    provider,
    model: 'm',
    system: '',
    messages: history,
    tools,
    meter: createCostMeter(() => 0),
    contextWindow: 1500,
    onEvent: (e) => events.push(e),
  });
  assert.equal(r.outcome, 'final');
  assert.equal(provider.requests[0]!.tools.length, 0, 'the summary call offers no tools');
  const sent = provider.requests[1]!.messages;
  assert.ok(sent.length < history.length, 'the answering call saw a shorter history');
  assert.match(JSON.stringify(sent[0]), /Summary of the earlier conversation.*three long questions/);
  assert.match(JSON.stringify(sent.at(-1)), /read the four files/, 'the last turn is kept whole');
  assert.ok(events.some((e) => e.type === 'summarized'));
  assert.equal(r.usage.inputTokens, 200, 'the summary call is metered');
});
