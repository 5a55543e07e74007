// The turn loop with a scripted model: answers, tool round trips, concurrency, failures.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { test } from 'node:test';
import { createCostMeter } from '../../../src/agent/loop/cost-meter.ts';
import { type LoopOptions, runLoop } from '../../../src/agent/loop/run-loop.ts';
import { createToolSet } from '../../../src/agent/loop/tool-set.ts';
import type { AgentEvent } from '../../../src/agent/loop/types.ts';
import type { BuiltinTool } from '../../../src/agent/tools/builtin.ts';
import type { Message } from '../../../src/agent/types.ts';
import { builtin, noSandbox, noWasm, policy } from './helpers.ts';
import { callTools, reply, type ScriptStep, scriptedModel } from './scripted.ts';

const ask = (text: string): Message[] => [{ role: 'user', content: [{ type: 'text', text }] }];

function setup(t: TestContext, steps: ScriptStep[], builtins: BuiltinTool[] = [], over: Partial<LoopOptions> = {}) {
  const provider = scriptedModel(t, steps);
  const events: AgentEvent[] = [];
  const tools = createToolSet({ wasm: noWasm, builtins, policy: policy('full'), sandbox: noSandbox });
  const opts: LoopOptions = {
    provider,
    model: 'm1',
    system: 'be brief',
    messages: ask('hi'),
    tools,
    meter: createCostMeter(() => 0.01),
    onEvent: (e) => events.push(e),
    ...over,
  };
  return { provider, events, run: () => runLoop(opts) };
}

test('a plain answer ends the run with outcome final, the text, usage and cost', async (t) => {
  const { run, events, provider } = setup(t, [reply('Hello there.')]);
  const r = await run();
  assert.equal(r.outcome, 'final');
  assert.equal(r.text, 'Hello there.');
  assert.deepEqual(r.usage, { inputTokens: 100, outputTokens: 20 });
  assert.equal(r.costUsd, 0.01);
  assert.equal(r.messages.length, 2);
  assert.deepEqual(r.messages[1], { role: 'assistant', content: [{ type: 'text', text: 'Hello there.' }] });
  assert.equal(provider.requests[0]?.system, 'be brief');
  assert.deepEqual(
    events.filter((e) => e.type === 'text-delta'),
    [{ type: 'text-delta', text: 'Hello there.' }],
  );
  assert.deepEqual(events.at(-1), { type: 'done', outcome: 'final' });
});

test('a tool call runs, its result goes back to the model, and the answer follows', async (t) => {
  const echo = builtin('echo', 'None');
  const { run, events, provider } = setup(
    t,
    [callTools([['echo', { text: 'ping' }]], 'Let me check.'), reply('It said ping.')],
    [echo],
  );
  const r = await run();
  assert.equal(r.outcome, 'final');
  assert.equal(r.text, 'It said ping.');
  assert.deepEqual(echo.calls, [{ text: 'ping' }]);
  assert.deepEqual(r.toolCalls, [{ name: 'echo', input: { text: 'ping' }, isError: false }]);
  const second = provider.requests[1]!;
  assert.deepEqual(second.messages.at(-1), {
    role: 'user',
    content: [{ type: 'tool-result', id: 'call-1', name: 'echo', content: 'echo: ping', isError: false }],
  });
  assert.deepEqual(
    provider.requests[0]?.tools.map((d) => d.name),
    ['echo'],
  );
  const start = events.find((e) => e.type === 'tool-start');
  assert.ok(start && start.type === 'tool-start' && start.status === 'using echo…', JSON.stringify(start));
  assert.equal(r.turns, 2);
  assert.equal(r.costUsd, 0.02);
});

test('the tool calls of one turn run concurrently and results keep the call order', async (t) => {
  let running = 0;
  let peak = 0;
  const gate: (() => void)[] = [];
  const slow = builtin('slow', 'ReadOnly', async (input) => {
    running++;
    peak = Math.max(peak, running);
    // Each call waits until all three have started: this only finishes if they run together.
    await new Promise<void>((resolve) => {
      gate.push(resolve);
      if (gate.length === 3) gate.forEach((g) => g());
    });
    running--;
    return { content: `done ${String(input.text)}`, isError: false };
  });
  const { run } = setup(
    t,
    [
      callTools([
        ['slow', { text: 'a' }],
        ['slow', { text: 'b' }],
        ['slow', { text: 'c' }],
      ]),
      reply('ok'),
    ],
    [slow],
  );
  const r = await run();
  assert.equal(peak, 3);
  const results = r.messages[2]!.content.map((p) => (p.type === 'tool-result' ? p.content : ''));
  assert.deepEqual(results, ['done a', 'done b', 'done c']);
});

test('calls that write run one at a time, in order', async (t) => {
  const order: string[] = [];
  let running = 0;
  let peak = 0;
  const write = builtin('write', 'Write', async (input) => {
    running++;
    peak = Math.max(peak, running);
    await new Promise((r) => setImmediate(r));
    order.push(String(input.text));
    running--;
    return { content: 'written', isError: false };
  });
  const { run } = setup(
    t,
    [
      callTools([
        ['write', { text: '1' }],
        ['write', { text: '2' }],
      ]),
      reply('ok'),
    ],
    [write],
  );
  await run();
  assert.equal(peak, 1);
  assert.deepEqual(order, ['1', '2']);
});

test('a failing tool, a bad input and an unknown tool come back to the model as error results', async (t) => {
  const boom = builtin('boom', 'None', async () => {
    throw new Error('disk on fire');
  });
  const echo = builtin('echo', 'None');
  const { run, provider } = setup(
    t,
    [
      callTools([
        ['boom', {}],
        ['echo', { text: 5, color: 'red' }],
        ['nope', {}],
      ]),
      reply('sorry'),
    ],
    [boom, echo],
  );
  const r = await run();
  assert.equal(r.outcome, 'final');
  const results = provider.requests[1]!.messages.at(-1)!.content;
  assert.deepEqual(
    results.map((p) => p.type === 'tool-result' && p.isError),
    [true, true, true],
  );
  const text = results.map((p) => (p.type === 'tool-result' ? p.content : ''));
  assert.match(text[0]!, /boom failed: disk on fire/);
  assert.match(text[1]!, /invalid input for echo: color: unknown field/);
  assert.match(text[2]!, /no tool named "nope"; available: boom, echo/);
  assert.equal(echo.calls.length, 0);
  assert.deepEqual(
    r.toolCalls.map((c) => c.isError),
    [true, true, true],
  );
});

test('a long tool result is capped before it reaches the model', async (t) => {
  const big = builtin('big', 'None', async () => ({ content: 'x'.repeat(100), isError: false }));
  const provider = scriptedModel(t, [callTools([['big', {}]]), reply('ok')]);
  const tools = createToolSet({
    wasm: noWasm,
    builtins: [big],
    policy: policy('full'),
    sandbox: noSandbox,
    maxResultChars: 40,
  });
  await runLoop({ provider, model: 'm', system: '', messages: ask('go'), tools, meter: createCostMeter(() => 0) });
  const result = provider.requests[1]!.messages.at(-1)!.content[0]!;
  assert.ok(result.type === 'tool-result');
  assert.match(result.content, /^x{40}\n\n\[output truncated: 60 of 100 characters cut\]$/);
});

test('a provider error ends the run with outcome error and the reason', async (t) => {
  const { run } = setup(t, [
    [
      { type: 'text-delta', text: 'Hel' },
      { type: 'error', error: new Error('overloaded (529)') },
    ],
  ]);
  const r = await run();
  assert.equal(r.outcome, 'error');
  assert.equal(r.error, 'overloaded (529)');
});

test('the run stops at maxTurns, answering the pending calls as not run', async (t) => {
  const echo = builtin('echo', 'None');
  const { run } = setup(t, [callTools([['echo', { text: '1' }]]), callTools([['echo', { text: '2' }]])], [echo], {
    maxTurns: 2,
  });
  const r = await run();
  assert.equal(r.outcome, 'max-turns');
  assert.equal(echo.calls.length, 1);
  const last = r.messages.at(-1)!.content[0]!;
  assert.ok(last.type === 'tool-result' && /not run: the run reached its limit of 2 turns/.test(last.content));
});

test('thinking blocks are kept verbatim in the history', async (t) => {
  const { run } = setup(t, [
    [
      { type: 'thinking', text: 'Let me ' },
      { type: 'thinking', text: 'think.', signature: 'sig-1' },
      { type: 'text-delta', text: 'Answer.' },
      { type: 'finish', reason: 'stop' },
    ],
  ]);
  const r = await run();
  assert.deepEqual(r.messages[1]!.content, [
    { type: 'thinking', text: 'Let me think.', signature: 'sig-1' },
    { type: 'text', text: 'Answer.' },
  ]);
  assert.equal(r.costUsd, null, 'no usage reported: the cost is unknown, not zero');
  assert.equal(r.cost.unknownCalls, 1);
});

test('a call answered by a fallback model is priced as that model', async (t) => {
  const provider = scriptedModel(t, [
    [
      { type: 'text-delta', text: 'from the fallback' },
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 10 }, model: 'openai/gpt-4o-mini' },
      { type: 'finish', reason: 'stop' },
    ],
  ]);
  const tools = createToolSet({ wasm: noWasm, builtins: [], policy: policy('full'), sandbox: noSandbox });
  const r = await runLoop({
    provider,
    model: 'claude',
    modelId: 'anthropic/claude',
    system: '',
    messages: ask('hi'),
    tools,
    meter: createCostMeter((m) => (m === 'openai/gpt-4o-mini' ? 0.5 : 9)),
  });
  assert.equal(r.costUsd, 0.5);
});
