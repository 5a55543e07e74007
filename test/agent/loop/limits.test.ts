// The loop's limits: budget, output-token recovery, cancellation and the total timeout.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCostMeter } from '../../../src/agent/loop/cost-meter.ts';
import { CONTINUE_PROMPT, type LoopOptions, runLoop } from '../../../src/agent/loop/run-loop.ts';
import { createToolSet } from '../../../src/agent/loop/tool-set.ts';
import type { BuiltinTool } from '../../../src/agent/tools/builtin.ts';
import type { Message } from '../../../src/agent/types.ts';
import { builtin, noSandbox, noWasm, policy } from './helpers.ts';
import { callTools, cutOff, hangAfter, reply, scriptedModel } from './scripted.ts';

const ask = (text: string): Message[] => [{ role: 'user', content: [{ type: 'text', text }] }];
const toolsOf = (...b: BuiltinTool[]) =>
  createToolSet({ wasm: noWasm, builtins: b, policy: policy('full'), sandbox: noSandbox });
/** A run of `provider` on the question 'go', with no tools and free calls unless `o` says otherwise. */
const go = (o: Pick<LoopOptions, 'provider'> & Partial<LoopOptions>) =>
  runLoop({ model: 'm', system: '', messages: ask('go'), tools: toolsOf(), meter: createCostMeter(() => 0), ...o });

test('spending past the budget stops the run with outcome budget-exceeded and the figures', async (t) => {
  const echo = builtin('echo', 'None');
  const provider = scriptedModel(t, [callTools([['echo', { text: '1' }]]), callTools([['echo', { text: '2' }]])]);
  const r = await go({
    provider,
    tools: toolsOf(echo),
    meter: createCostMeter(() => 0.03, 0.05),
  });
  assert.equal(r.outcome, 'budget-exceeded');
  assert.equal(echo.calls.length, 1, 'the second turn’s tool is not run');
  assert.deepEqual(r.cost, { knownUsd: 0.06, unknownCalls: 0, limitUsd: 0.05 });
  assert.equal(r.costUsd, 0.06);
  const last = r.messages.at(-1)!.content[0]!;
  assert.ok(last.type === 'tool-result' && /not run: the session budget is spent/.test(last.content));
});

test('a session already over budget does not call the model at all', async (t) => {
  const provider = scriptedModel(t, []);
  const meter = createCostMeter(() => 1, 0.5);
  meter.add('m', { inputTokens: 1, outputTokens: 1 });
  const r = await go({ provider, meter });
  assert.equal(r.outcome, 'budget-exceeded');
  assert.equal(r.turns, 0);
});

test('an unknown price is counted as unknown, not as zero', async (t) => {
  const provider = scriptedModel(t, [reply('hi')]);
  const r = await go({ provider, meter: createCostMeter(() => undefined, 0.01) });
  assert.equal(r.outcome, 'final');
  assert.equal(r.costUsd, null);
  assert.deepEqual(r.cost, { knownUsd: 0, unknownCalls: 1, limitUsd: 0.01 });
});

test('a reply cut off by the output limit is continued, and the parts are joined', async (t) => {
  const provider = scriptedModel(t, [cutOff('The first half, '), reply('and the second half.')]);
  const r = await go({ provider });
  assert.equal(r.outcome, 'final');
  assert.equal(r.text, 'The first half, and the second half.');
  assert.deepEqual(provider.requests[1]!.messages.at(-1), {
    role: 'user',
    content: [{ type: 'text', text: CONTINUE_PROMPT }],
  });
});

test('output-token recovery asks at most 3 times, then returns what there is', async (t) => {
  const provider = scriptedModel(t, [cutOff('a'), cutOff('b'), cutOff('c'), cutOff('d')]);
  const events: string[] = [];
  const r = await go({
    provider,
    onEvent: (e) => events.push(e.type),
  });
  assert.equal(r.outcome, 'max-tokens');
  assert.equal(r.text, 'abcd');
  assert.equal(provider.requests.length, 4);
  assert.equal(events.filter((e) => e === 'recovering').length, 3);
});

test('cancelling stops the model stream promptly: outcome cancelled, partial text kept', async (t) => {
  const seen: { signal?: AbortSignal } = {};
  const provider = scriptedModel(t, [hangAfter('Partial ans', seen)]);
  const ctl = new AbortController();
  const r = await go({
    provider,
    signal: ctl.signal,
    onEvent: (e) => e.type === 'text-delta' && ctl.abort(),
  });
  assert.equal(r.outcome, 'cancelled');
  assert.equal(r.text, 'Partial ans');
  assert.equal(seen.signal?.aborted, true, 'the provider’s stream signal fired');
  assert.deepEqual(r.messages.at(-1), { role: 'assistant', content: [{ type: 'text', text: 'Partial ans' }] });
});

test('cancelling stops running tools: the tool sees the signal, one ignoring it is not waited for', async (t) => {
  let sawAbort = false;
  const polite = builtin(
    'polite',
    'None',
    (_i, ctx) =>
      new Promise((_resolve, reject) =>
        ctx.signal?.addEventListener('abort', () => {
          sawAbort = true;
          reject(new Error('aborted'));
        }),
      ),
  );
  const stubborn = builtin('stubborn', 'None', () => new Promise(() => {}));
  const provider = scriptedModel(t, [
    callTools([
      ['polite', {}],
      ['stubborn', {}],
    ]),
  ]);
  const ctl = new AbortController();
  let started = 0;
  const r = await go({
    provider,
    tools: toolsOf(polite, stubborn),
    signal: ctl.signal,
    onEvent: (e) => e.type === 'tool-start' && ++started === 2 && ctl.abort(),
  });
  assert.equal(r.outcome, 'cancelled');
  assert.ok(sawAbort);
  const results = r.messages.at(-1)!.content.map((p) => (p.type === 'tool-result' ? p.content : ''));
  assert.deepEqual(results, ['cancelled before it finished', 'cancelled before it finished']);
});

test('the total timeout ends a run that hangs with outcome timeout', async (t) => {
  const seen: { signal?: AbortSignal } = {};
  const provider = scriptedModel(t, [hangAfter('still thinking', seen)]);
  const r = await go({ provider, timeoutMs: 30 });
  assert.equal(r.outcome, 'timeout');
  assert.equal(seen.signal?.aborted, true);
});

test('an already-aborted signal cancels before anything runs', async (t) => {
  const provider = scriptedModel(t, []);
  const ctl = new AbortController();
  ctl.abort();
  const r = await go({ provider, signal: ctl.signal });
  assert.equal(r.outcome, 'cancelled');
  assert.equal(r.turns, 0);
});

test('calls in flight hold their estimates: the session budget and shared ones refuse the call past them', async () => {
  // A session budget of $1, calls estimated at $0.40 (parallel sub-agents share the root meter).
  const shared: number[] = [];
  let sharedRefuses = false;
  const meter = createCostMeter(() => 0.4, 1, {
    reserve: async (usd) => {
      if (sharedRefuses) return undefined;
      shared.push(usd);
      return { release: () => shared.splice(shared.indexOf(usd), 1) };
    },
  });
  const child = meter.child();
  const estimate = { inputTokens: 1000, outputTokens: 8192 };
  const a = await meter.reserve('m', estimate);
  const b = await child.reserve('m', estimate);
  const c = await child.reserve('m', estimate);
  assert.ok(a && b && c, 'held $0.80 < $1: the third may go');
  assert.equal(await meter.reserve('m', estimate), undefined, '$1.20 held: a fourth would pass the budget');
  assert.deepEqual(shared, [0.4, 0.4, 0.4], 'each held in the shared budgets too');
  // One call is charged and gives its hold back; another ends without a charge.
  meter.add('m', estimate);
  a.release();
  a.release(); // given back once
  b.release();
  assert.deepEqual(shared, [0.4]);
  const d = await meter.reserve('m', estimate);
  assert.ok(d, '$0.40 spent + $0.40 held: room for one more');
  d.release();
  sharedRefuses = true;
  assert.equal(await meter.reserve('m', estimate), undefined, 'a shared budget taken up refuses it');
  sharedRefuses = false;
  assert.ok(await meter.reserve('m', estimate), 'a refused call held nothing');
  assert.deepEqual(shared, [0.4, 0.4]);
});
