// Agent loop benchmark: overhead per turn excluding model time (a scripted model answering
// instantly, one built-in tool call per turn), p50/p99, against a baseline measured in this run
// (the same stream iterated and the same tool called directly, without the loop); and memory
// per idle session (a finished run's result kept) against its messages alone.
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { AgentEvent, AgentResult, Provider, StreamPart } from '../src/agent/index.ts';
import type { BuiltinTool } from '../src/agent/tools/builtin.ts';
import { quantile, r2 } from './stats.ts';

// Measure the compiled build when there is one (`npm run bench` builds it first).
const dist = new URL('../dist/agent/index.js', import.meta.url);
const built = existsSync(dist);
const agent = (await import(
  built ? dist.href : new URL('../src/agent/index.ts', import.meta.url).href
)) as typeof import('../src/agent/index.ts');
const { DEFAULT_LIMITS } = (await import(
  built
    ? new URL('../dist/sandbox/index.js', import.meta.url).href
    : new URL('../src/sandbox/index.ts', import.meta.url).href
)) as typeof import('../src/sandbox/index.ts');

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const TURNS = 100;
const RUNS = 30;

/** A model that calls `echo` each turn and answers on turn `turns`, without delay. */
function instantModel(turns: number): Provider {
  let call = 0;
  return {
    name: 'bench',
    async *stream(): AsyncGenerator<StreamPart> {
      call++;
      if (call >= turns) {
        yield { type: 'text-delta', text: 'done' };
        yield { type: 'usage', usage: { inputTokens: 10, outputTokens: 2 } };
        yield { type: 'finish', reason: 'stop' };
        return;
      }
      yield { type: 'text-delta', text: 'checking' };
      yield { type: 'tool-call', id: `c${call}`, name: 'echo', input: { text: `turn ${call}` } };
      yield { type: 'usage', usage: { inputTokens: 10, outputTokens: 2 } };
      yield { type: 'finish', reason: 'tool-calls' };
    },
  };
}

const echo: BuiltinTool = {
  name: 'echo',
  description: 'echo',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
  permissionLevel: 'None',
  run: async (input) => ({ content: String(input.text), isError: false }),
};

const policy = {
  access: 'full' as const,
  workspace: '/nonexistent-bench-workspace',
  network: { allow: [], block: ['private'] },
  limits: DEFAULT_LIMITS,
};
const deps = (provider: Provider): import('../src/agent/index.ts').AgentDeps => ({
  resolveModel: () => ({ provider, model: 'instant', id: 'bench/instant' }),
  registry: { list: () => [], get: () => undefined },
  sandbox: { run: () => Promise.reject(new Error('no sandbox in this bench')) } as never,
  costOf: (_m, u) => (u.inputTokens * 3 + u.outputTokens * 15) / 1e6,
  builtins: [echo],
});

/** Per-turn times of one run: between consecutive turn-start events (model + tool + loop). */
async function loopRun(turns: number): Promise<number[]> {
  const starts: number[] = [];
  const onEvent = (e: AgentEvent) => {
    if (e.type === 'turn-start') starts.push(performance.now());
  };
  const r = await agent.runAgent({
    input: 'go',
    policy: { ...policy, maxTurns: turns + 1 },
    deps: deps(instantModel(turns)),
    onEvent,
  });
  starts.push(performance.now());
  if (r.outcome !== 'final' || r.turns !== turns)
    throw new Error(`bench run ended ${r.outcome} after ${r.turns} turns`);
  return starts.slice(1).map((t, i) => t - starts[i]!);
}

/** The baseline: the same stream read and the same tool called directly, per turn. */
async function rawRun(turns: number): Promise<number[]> {
  const model = instantModel(turns);
  const out: number[] = [];
  const signal = new AbortController().signal;
  for (let i = 0; i < turns; i++) {
    const t = performance.now();
    const calls: { input: unknown }[] = [];
    for await (const p of model.stream({ model: 'instant', system: '', messages: [], tools: [] }, signal))
      if (p.type === 'tool-call') calls.push(p);
    for (const c of calls) await echo.run(c.input as Record<string, unknown>, { signal });
    out.push(performance.now() - t);
  }
  return out;
}

// Warm up both paths, then measure.
for (let i = 0; i < 5; i++) {
  await loopRun(TURNS);
  await rawRun(TURNS);
}
const loop: number[] = [];
const raw: number[] = [];
for (let i = 0; i < RUNS; i++) {
  loop.push(...(await loopRun(TURNS)));
  raw.push(...(await rawRun(TURNS)));
}

// Memory per idle session: a finished 3-turn run's result kept, as a gateway keeps history.
const SESSIONS = 2000;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const kept: AgentResult[] = [];
const h0 = heap();
for (let i = 0; i < SESSIONS; i++)
  kept.push(await agent.runAgent({ input: `hello ${i}`, policy, deps: deps(instantModel(3)) }));
const sessionBytes = (heap() - h0) / SESSIONS;
const sample = kept[0]!;
const sessions = kept.length;
kept.length = 0;
const plain: unknown[] = [];
const h1 = heap();
for (let i = 0; i < SESSIONS; i++) plain.push(structuredClone(sample.messages));
const plainBytes = (heap() - h1) / SESSIONS;
if (plain.length !== sessions) throw new Error('memory samples differ');

const us = (ms: number) => r2(ms * 1000);
const p50 = quantile(loop, 0.5);
const figures = {
  turnP50Us: us(p50),
  turnP99Us: us(quantile(loop, 0.99)),
  turnMeanUs: us(loop.reduce((a, b) => a + b, 0) / loop.length),
  baselineP50Us: us(quantile(raw, 0.5)),
  turnVsBaselineRatio: r2(p50 / quantile(raw, 0.5)),
  sessionKb: r2(sessionBytes / 1024),
  messagesOnlyKb: r2(plainBytes / 1024),
  sessionVsMessagesRatio: r2(sessionBytes / plainBytes),
  build: built ? 'dist' : 'src (tsx)',
};
console.log(
  `agent loop bench (${RUNS} runs x ${TURNS} turns, instant scripted model, one built-in tool call per ` +
    `turn; ${figures.build})`,
);
console.log(
  `  loop turn p50 ${figures.turnP50Us} µs, p99 ${figures.turnP99Us} µs, mean ${figures.turnMeanUs} µs   ` +
    `target <= 1000 µs`,
);
console.log(
  `  baseline (stream read + tool called directly) p50 ${figures.baselineP50Us} µs; loop / baseline ` +
    `= ${figures.turnVsBaselineRatio}x`,
);
console.log(
  `  memory per idle session (3-turn run kept) ${figures.sessionKb} KiB; its messages ` +
    `alone ${figures.messagesOnlyKb} KiB (${figures.sessionVsMessagesRatio}x)`,
);
console.log(JSON.stringify(figures));
