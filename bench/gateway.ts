// Gateway benchmark: 1,000 conversations x 10 messages through the Telegram emulator (long
// polling with the real grammY adapter, the real gateway, lowdb file store and agent runner) with
// an instant in-process model (no HTTP, so model time is ~0 and measured). The emulator runs in
// a worker thread: its CPU and heap are not counted as the gateway's. Figures: throughput,
// overhead per message (p50/p99, model time excluded) against a bare sendMessage round trip and
// where it goes by stage (intake, journal, policy, memory, model, reply, usage, history, outbox),
// memory per idle conversation, lost/duplicated/out-of-order replies, the store write latency at
// 100 vs 100,000 conversations (bench/store.ts, run as a child), and boxbot against a bare
// grammY + OpenAI SDK bot over real HTTP (bench/gateway-vs-bare.ts). The agent runner is wired
// as main.ts wires it for a default config (memory's digest on).
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics, setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import type { ChannelAdapter } from '../src/adapters/index.ts';
import type { Provider } from '../src/agent/index.ts';
import type { GatewayStore } from '../src/runner/ports.ts';
import type { JsonValue, Store } from '../src/store/index.ts';
import type { BareComparison, BotEndpoint } from './gateway-vs-bare.ts';
import { quantile, r2 } from './stats.ts';

/** Resolves once the store's document journal is empty (every journaled document in its file), or after 30 s. */
async function journalWritten(path: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  const size = () => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  };
  while (size() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

// BENCH_GATEWAY_CONVERSATIONS: fewer conversations for a quick look (the figures quoted use 1,000).
/** A file of bench/ (this module may run from the bench's bundle: bench/run.ts says where bench/ is). */
const benchFile = (name: string): string =>
  join(process.env.BOXBOT_BENCH_DIR ?? dirname(fileURLToPath(import.meta.url)), name);
const CONVERSATIONS = Number(process.env.BENCH_GATEWAY_CONVERSATIONS ?? 1000);
const PER_CONVERSATION = 10;
const LATENCY_SAMPLES = 400;
const LATENCY_CHATS = 50;
const THROUGHPUT_CHAT = 1_000_000;
const LATENCY_CHAT = 2_000_000;

/** Absolute time in ms, comparable across threads. */
const now = (): number => performance.timeOrigin + performance.now();

/**
 * CPU time (ms, user + system) of this process's main thread alone, where the platform tells it
 * (Linux: /proc); the emulator's worker thread and libuv's pool are not counted. Else undefined.
 */
function mainThreadCpuMs(): number | undefined {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/**
 * With BENCH_GATEWAY_PROFILE=<file>: a CPU profile of the main thread over the throughput run, or with a
 * `.heapprofile` name its allocations (sampled, what was collected counted too: what GC pays for).
 */
async function profiled<T>(run: () => Promise<T>): Promise<T> {
  const file = process.env.BENCH_GATEWAY_PROFILE;
  if (!file) return run();
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  // A file name ending in .heapprofile samples allocations (collected objects counted) instead of CPU.
  const heap = file.endsWith('.heapprofile');
  if (heap)
    await post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  else {
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 200 });
    await post('Profiler.start');
  }
  try {
    return await run();
  } finally {
    const { profile } = (await post(heap ? 'HeapProfiler.stopSampling' : 'Profiler.stop')) as { profile: unknown };
    await writeFile(file, JSON.stringify(profile));
    session.disconnect();
  }
}

/** The emulator thread's Telegram emulators: boxbot's own series, then the bare-bot comparison's two. */
type BotName = 'main' | 'bare' | 'boxbot';

type Req =
  | { op: 'addChat'; chatId: number; bot?: BotName }
  | { op: 'inject'; items: [chatId: number, text: string][]; bot?: BotName }
  | { op: 'verify'; conversations: number; perConversation: number }
  | { op: 'counts' }
  | { op: 'close' };

// ---- the emulator's thread ------------------------------------------------------------------

async function emulatorThread(): Promise<void> {
  const { startTelegramEmulator } = await import('../test/emulators/telegram/index.ts');
  const { startLlmEmulator, llm } = await import('../test/emulators/llm/index.ts');
  const { answerOf } = await import('./gateway-vs-bare.ts');
  const emus = {
    main: await startTelegramEmulator(),
    bare: await startTelegramEmulator(),
    boxbot: await startTelegramEmulator(),
  };
  const emu = emus.main;
  // Answers at once with the text of the last user message (OpenAI's content: a string or parts).
  const model = await startLlmEmulator();
  model.respond((r) => {
    const messages = (r.body?.messages ?? []) as { role: string; content: unknown }[];
    const content = messages.filter((m) => m.role === 'user').at(-1)?.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((p: { text?: string }) => p.text ?? '').join('')
          : '';
    return llm.say(answerOf(text));
  });
  const port = parentPort!;
  const person = (id: number) => ({
    chat: { id, type: 'private' as const, first_name: `U${id}` },
    from: { id, is_bot: false, first_name: `U${id}`, username: `u${id}` },
  });
  const endpoint = (e: typeof emu) => ({ apiRoot: e.apiRoot, token: e.token });
  port.postMessage({
    main: endpoint(emus.main),
    bare: endpoint(emus.bare),
    boxbot: endpoint(emus.boxbot),
    openaiBaseURL: model.openaiBaseURL,
  });
  port.on('message', async ({ id, req }: { id: number; req: Req }) => {
    let res: unknown;
    switch (req.op) {
      case 'addChat':
        emus[req.bot ?? 'main'].addChat(person(req.chatId).chat);
        break;
      case 'inject': {
        const t = now();
        const to = emus[req.bot ?? 'main'];
        for (const [chatId, text] of req.items) to.userMessage({ ...person(chatId), text });
        res = t;
        break;
      }
      case 'verify': {
        // What users see: per chat, the bot's messages (latest text) must be the replies to m0..m9, each once, in
        // order.
        let lost = 0;
        let duplicated = 0;
        let outOfOrder = 0;
        for (let c = 0; c < req.conversations; c++) {
          const chatId = String(THROUGHPUT_CHAT + c);
          const seen = emu.botMessages(chatId).map((m) => m.text);
          const expected = Array.from({ length: req.perConversation }, (_, k) => `reply: c${c} m${k}`);
          for (const e of expected) {
            const n = seen.filter((s) => s === e).length;
            if (n === 0) lost++;
            else duplicated += n - 1;
          }
          duplicated += seen.filter((s) => !expected.includes(s)).length;
          const order = seen.map((s) => expected.indexOf(s)).filter((i) => i >= 0);
          for (let i = 1; i < order.length; i++) if (order[i]! < order[i - 1]!) outOfOrder++;
        }
        res = { lost, duplicated, outOfOrder };
        break;
      }
      case 'counts': {
        const counts: Record<string, number> = {};
        for (const c of emu.calls) counts[c.method] = (counts[c.method] ?? 0) + 1;
        res = counts;
        break;
      }
      case 'close':
        for (const e of Object.values(emus)) await e.close();
        await model.close();
        port.postMessage({ id });
        port.close();
        return;
    }
    port.postMessage({ id, res });
  });
}

// ---- the gateway's thread -------------------------------------------------------------------

async function gatewayThread(): Promise<void> {
  const { createTelegramAdapter } = await import('../src/adapters/telegram/index.ts');
  const { createAgentRunner } = await import('../src/runner/agent-runner.ts');
  const { createGateway } = await import('../src/gateway/gateway.ts');
  const { configSchema } = await import('../src/config/schema.ts');
  const { createFileStore } = await import('../src/store/index.ts');
  const { DEFAULT_LIMITS } = await import('../src/sandbox/index.ts');
  const { silentLogger } = await import('../src/core/log.ts');

  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // With BENCH_GATEWAY_HEAP=<dir>: heap snapshots around the throughput run, to diff what idle conversations keep.
  const snapshot = (name: string): void => {
    const dir = process.env.BENCH_GATEWAY_HEAP;
    if (dir) writeHeapSnapshot(join(dir, `gateway-${name}.heapsnapshot`));
  };
  const heap = (): number => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  // V8's code space: machine code compiled as the run warms up, which does not grow with conversations.
  const codeSpace = (): number =>
    getHeapSpaceStatistics().find((x) => x.space_name === 'code_space')?.space_used_size ?? 0;

  // Node 20 does not apply the parent's --import hooks to a worker's entry: register tsx inside it first.
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const worker = new Worker(
    `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return ` +
      `import(${JSON.stringify(import.meta.url)}); })`,
    { eval: true },
  );
  worker.on('error', (e) => {
    console.error(`the emulator thread failed: ${e.message}`);
    process.exit(1);
  });
  const endpoints = await new Promise<Record<BotName, BotEndpoint> & { openaiBaseURL: string }>((r) =>
    worker.once('message', r),
  );
  const { apiRoot, token } = endpoints.main;
  let seq = 0;
  const waiting = new Map<number, (v: unknown) => void>();
  worker.on('message', (m: { id: number; res: unknown }) => {
    waiting.get(m.id)?.(m.res);
    waiting.delete(m.id);
  });
  const ask = <T>(req: Req): Promise<T> =>
    new Promise((resolve) => {
      const id = ++seq;
      waiting.set(id, resolve as (v: unknown) => void);
      worker.postMessage({ id, req });
    });

  // Per-message bookkeeping lives in typed arrays allocated up front, so the heap figure is the gateway's.
  const TOTAL = CONVERSATIONS * PER_CONVERSATION;
  const sinkAt = new Float64Array(TOTAL + LATENCY_SAMPLES);
  const doneAt = new Float64Array(TOTAL + LATENCY_SAMPLES);
  const modelMs = new Float64Array(TOTAL + LATENCY_SAMPLES);
  const finished = new Uint8Array(TOTAL + LATENCY_SAMPLES); // marked answered by the gateway
  const sent = new Uint8Array(TOTAL + LATENCY_SAMPLES); // its answer taken by the platform
  const slot = new Map<string, number>(); // message id → slot, cleared before the heap is read
  let doneCount = 0;
  let onDone: (() => void) | undefined;
  const indexOf = (text: string): number => {
    const t = /^c(\d+) m(\d+)$/.exec(text);
    if (t) return Number(t[1]) * PER_CONVERSATION + Number(t[2]);
    const l = /^L\d+ n(\d+)$/.exec(text);
    return l ? TOTAL + Number(l[1]) : -1;
  };

  /** An instant model: answers "reply: <the user's text>" at once; times itself. */
  const instant: Provider = {
    name: 'bench',
    async *stream(request) {
      const t = performance.now();
      stageMark('model');
      const last = request.messages.at(-1);
      const part = last?.content.find((p) => p.type === 'text');
      const text = part && part.type === 'text' ? part.text : '';
      const reply = `reply: ${text}`;
      const i = indexOf(text);
      if (i >= 0) modelMs[i] = performance.now() - t;
      yield { type: 'text-delta', text: reply };
      yield { type: 'usage', usage: { inputTokens: 10, outputTokens: 3 } };
      yield { type: 'finish', reason: 'stop' };
    },
  };

  // Where the light-load time goes: the gateway's and agent runner's store operations, the
  // poller's offset writes (after the sink accepted, overlapping the run), awaited platform calls.
  const spent = { on: false, storeMs: 0, offsetMs: 0, platformMs: 0 };
  // Store calls can overlap (a turn's usage charges and its history wait on one shared sync), so
  // the store's figure is the time its calls cover together, not the sum of their durations.
  const storeSpans: [number, number][] = [];
  const union = (list: [number, number][]): number => {
    let total = 0;
    let end = Number.NEGATIVE_INFINITY;
    for (const [a, b] of [...list].sort((x, y) => x[0] - y[0])) {
      if (b > end) total += b - Math.max(a, end);
      end = Math.max(end, b);
    }
    return total;
  };
  // The same time by stage of a message's path (light load: one message in flight at a time, so
  // a stage's calls never overlap another message's). `intake` is the sink to the journal write;
  // `policy` the rest of the time from the journal write to the model call (the queue, the run
  // slot, the workspace and its record, the policy), less the time the history and memory reads
  // in it cover (they overlap: see `covered`). `outbox` is the entry written before the send or
  // beside it (an answer already durable in the history), `end` what is written once the platform
  // took the answer (the entry's end): after the reply, so not part of the overhead. Stages that run
  // side by side (the outbox entry and the reply) overlap: their sum can exceed the overhead.
  const stageMs = {
    intake: 0,
    journal: 0,
    policy: 0,
    memory: 0,
    model: 0,
    reply: 0,
    usage: 0,
    history: 0,
    outbox: 0,
    end: 0,
  };
  type Stage = keyof typeof stageMs;
  let accepted: number | undefined;
  // The history, memory and usage calls made between the two marks: their time is theirs, not the
  // policy's. The runner makes some of them side by side (the history and the memory digest), so
  // what is taken off is the time they cover together, not the sum of their durations.
  let spans: [number, number][] = [];
  const covered = (from: number, to: number): number => {
    let total = 0;
    let end = from;
    for (const [a, b] of spans.sort((x, y) => x[0] - y[0])) {
      const s = Math.max(a, end);
      const e = Math.min(b, to);
      if (e > s) total += e - s;
      end = Math.max(end, e);
    }
    return total;
  };
  /** Marks where a message's time moves on: the journal written, the model called. */
  const stageMark = (at: 'accepted' | 'model') => {
    if (!spent.on) return;
    if (at === 'accepted') {
      accepted = performance.now();
      spans = [];
    } else if (accepted !== undefined) {
      const t = performance.now();
      stageMs.policy += t - accepted - covered(accepted, t);
      accepted = undefined;
    }
  };
  const timed =
    <A extends unknown[], R>(kind: 'storeMs' | 'offsetMs' | 'platformMs', f: (...a: A) => Promise<R>, stage?: Stage) =>
    async (...a: A): Promise<R> => {
      const t = performance.now();
      try {
        return await f(...a);
      } finally {
        if (spent.on) {
          const end = performance.now();
          spent[kind] += end - t;
          if (kind === 'storeMs') storeSpans.push([t, end]);
          if (stage) stageMs[stage] += end - t;
          if (accepted !== undefined && (stage === 'history' || stage === 'memory' || stage === 'usage'))
            spans.push([t, end]);
        }
      }
    };

  const root = await mkdtemp(join(tmpdir(), 'boxbot-bench-gateway-'));
  const store = createFileStore(join(root, 'data'));
  // The runner's usage writes (each model call's charge) and reads (a budget's) count too: they
  // are waited for before the history is saved.
  const runnerStore: Store = {
    ...store,
    conversations: {
      ...store.conversations,
      get: timed('storeMs', store.conversations.get, 'history'),
      setMessages: timed('storeMs', store.conversations.setMessages, 'history'),
    },
    usage: {
      add: timed('storeMs', store.usage.add, 'usage'),
      get: timed('storeMs', store.usage.get, 'usage'),
      daily: store.usage.daily,
    },
    memories: { ...store.memories, list: timed('storeMs', store.memories.list, 'memory') },
  };
  const adapter = createTelegramAdapter({
    token,
    apiRoot,
    state: {
      get: (k) => store.kv.get(k),
      set: timed('offsetMs', (k: string, v: unknown) => store.kv.set(k, v as JsonValue)),
    },
    logger: silentLogger,
    backoff: { initialMs: 50, maxMs: 500 },
  });
  const timedSend = timed('platformMs', (...a: Parameters<ChannelAdapter['send']>) => adapter.send(...a), 'reply');
  const timedEdit = timed('platformMs', (...a: Parameters<ChannelAdapter['edit']>) => adapter.edit(...a), 'reply');
  // The sink is timed where the gateway receives a normalized message.
  const timedAdapter: ChannelAdapter = {
    platform: adapter.platform,
    capabilities: adapter.capabilities,
    start: (sink) =>
      adapter.start(async (m) => {
        const i = indexOf(m.text);
        if (i >= 0) {
          sinkAt[i] = performance.now();
          slot.set(m.id, i);
        }
        await sink(m);
      }),
    stop: () => adapter.stop(),
    async send(t, text, o) {
      const sent = await timedSend(t, text, o);
      delivered(text);
      return sent;
    },
    async edit(t, id, text, o) {
      await timedEdit(t, id, text, o);
      if (!o?.preview) delivered(text);
    },
    typing: (t) => adapter.typing(t),
    routes: () => adapter.routes(),
    identity: () => adapter.identity(),
  };
  // A message is done when the platform took its answer (what its user notices); the gateway's
  // marking it answered (the outbox entry's end, which may follow) is counted to find answers
  // given twice or never.
  function delivered(text: string): void {
    const i = text.startsWith('reply: ') ? indexOf(text.slice('reply: '.length)) : -1;
    if (i < 0 || sent[i] === 1) return;
    sent[i] = 1;
    doneAt[i] = performance.now();
    doneCount++;
    onDone?.();
  }
  const gatewayStore = store.delivery;
  const answered = (id: string | undefined): void => {
    const i = id === undefined ? undefined : slot.get(id);
    if (i === undefined) return;
    slot.delete(id!);
    finished[i]!++;
    onDone?.();
  };
  const finish = timed('storeMs', gatewayStore.finish, 'end');
  const finishOutbox = timed('storeMs', gatewayStore.finishOutbox, 'end');
  const accept = timed('storeMs', gatewayStore.accept, 'journal');
  const timedStore: GatewayStore = {
    ...gatewayStore,
    async accept(m) {
      const i = indexOf(m.text);
      if (spent.on && i >= TOTAL) stageMs.intake += performance.now() - sinkAt[i]!;
      const fresh = await accept(m);
      stageMark('accepted');
      return fresh;
    },
    putOutbox: timed('storeMs', gatewayStore.putOutbox, 'outbox'),
    notePreview: timed('storeMs', gatewayStore.notePreview, 'outbox'),
    receipt: timed('storeMs', gatewayStore.receipt, 'outbox'),
    async finishOutbox(id, answeredId) {
      await finishOutbox(id, answeredId);
      answered(answeredId);
    },
    async finish(id) {
      await finish(id);
      answered(id);
    },
  };
  const config = configSchema.parse({});
  const agent = createAgentRunner({
    store: runnerStore,
    deps: {
      resolveModel: () => ({ provider: instant, model: 'instant', id: 'bench/instant' }),
      registry: { list: () => [], get: () => undefined },
      sandbox: { run: () => Promise.reject(new Error('no sandbox in this bench')) } as never,
      costOf: () => 0,
    },
    // Every feature of a default config on, as main.ts wires it: memory's digest too.
    ...(config.memory.enabled ? { memory: { digestChars: config.memory.digestChars } } : {}),
    workspacesDir: join(root, 'data', 'workspaces'),
    sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
  });
  const gateway = createGateway({
    config,
    adapters: [timedAdapter],
    agent,
    store: timedStore,
    log: silentLogger,
    concurrency: config.gateway.concurrency,
  });
  await gateway.start();
  const until = (pred: () => boolean): Promise<void> =>
    new Promise((resolve) => {
      if (pred()) return resolve();
      onDone = () => {
        if (!pred()) return;
        onDone = undefined;
        resolve();
      };
    });

  try {
    // 1. Light load, interleaved with the baseline: one message at a time through the whole path,
    //    then one bare sendMessage round trip from the same adapter to the same emulator.
    for (let c = 0; c < LATENCY_CHATS; c++) await ask({ op: 'addChat', chatId: LATENCY_CHAT + c });
    const baseline: number[] = [];
    const e2e: number[] = [];
    const warmup = 50;
    for (let n = 0; n < LATENCY_SAMPLES; n++) {
      spent.on = n >= warmup;
      const c = n % LATENCY_CHATS;
      const i = TOTAL + n;
      const pushedAt = await ask<number>({ op: 'inject', items: [[LATENCY_CHAT + c, `L${c} n${n}`]] });
      await until(() => sent[i] === 1);
      e2e.push(performance.timeOrigin + doneAt[i]! - pushedAt);
      // Its store work after the answer went out (the outbox entry's end) is its own too, not the next message's.
      await until(() => finished[i] === 1);
      spent.on = false;
      const t = performance.now();
      await adapter.send(
        { conversationKey: `telegram:${LATENCY_CHAT + c}`, chatId: String(LATENCY_CHAT + c) },
        'ping',
        { format: 'plain' },
      );
      baseline.push(performance.now() - t);
    }
    await gateway.idle();
    const overhead: number[] = [];
    const model: number[] = [];
    for (let n = warmup; n < LATENCY_SAMPLES; n++) {
      const i = TOTAL + n;
      overhead.push(doneAt[i]! - sinkAt[i]! - modelMs[i]!);
      model.push(modelMs[i]!);
    }
    const callsBefore = await ask<Record<string, number>>({ op: 'counts' });

    // 2. Throughput: every message of every conversation queued at the platform at once
    //    (message k of all conversations, then k+1, ...), answered in order per conversation.
    const h0 = heap();
    const code0 = codeSpace();
    snapshot('before');
    const rss0 = process.memoryUsage().rss;
    const items: [number, string][] = [];
    for (let k = 0; k < PER_CONVERSATION; k++)
      for (let c = 0; c < CONVERSATIONS; c++) items.push([THROUGHPUT_CHAT + c, `c${c} m${k}`]);
    const doneBefore = doneCount;
    const cpu0 = mainThreadCpuMs();
    const processCpu0 = process.cpuUsage();
    const startedAt = await profiled(async () => {
      const t = await ask<number>({ op: 'inject', items });
      items.length = 0;
      await until(() => doneCount - doneBefore >= TOTAL);
      await gateway.idle();
      return t;
    });
    const cpu1 = mainThreadCpuMs();
    const processCpu = process.cpuUsage(processCpu0);
    const seconds = (performance.timeOrigin + Math.max(...doneAt.subarray(0, TOTAL)) - startedAt) / 1000;
    slot.clear();
    // The file store journals histories and usage and writes their files a moment later (a
    // checkpoint): what it holds until then is in flight, not what an idle conversation keeps.
    await journalWritten(join(root, 'data', 'documents.journal'));
    const h1 = heap();
    const code1 = codeSpace();
    snapshot('after');
    const rss1 = process.memoryUsage().rss;
    const loaded: number[] = [];
    for (let i = 0; i < TOTAL; i++) loaded.push(doneAt[i]! - sinkAt[i]! - modelMs[i]!);
    const check = await ask<{ lost: number; duplicated: number; outOfOrder: number }>({
      op: 'verify',
      conversations: CONVERSATIONS,
      perConversation: PER_CONVERSATION,
    });
    let answeredTwice = 0;
    let neverAnswered = 0;
    for (let i = 0; i < TOTAL; i++) {
      if (finished[i] === 0) neverAnswered++;
      if (finished[i]! > 1) answeredTwice++;
    }
    const callsAfter = await ask<Record<string, number>>({ op: 'counts' });
    const perMessage = (m: string) => r2(((callsAfter[m] ?? 0) - (callsBefore[m] ?? 0)) / TOTAL);

    // 3. Store write latency at 100 vs 100,000 conversations: bench/store.ts, as a child (left
    //    out with BENCH_GATEWAY_QUICK=1, while working on the hot path: it takes a minute).
    const quick = process.env.BENCH_GATEWAY_QUICK === '1';
    const storeRun = quick
      ? undefined
      : spawnSync(process.execPath, ['--import', 'tsx', benchFile('store.ts')], { encoding: 'utf8' });
    if (storeRun && storeRun.status !== 0) throw new Error(`bench/store.ts failed: ${storeRun.stderr}`);
    const storeFigures = (
      storeRun
        ? JSON.parse(storeRun.stdout.trim().split('\n').at(-1)!)
        : { writeP50Ms100: NaN, writeP50Ms100k: NaN, writeP99Ms100: NaN, writeP99Ms100k: NaN, ratioP50: NaN }
    ) as {
      writeP50Ms100: number;
      writeP50Ms100k: number;
      writeP99Ms100: number;
      writeP99Ms100k: number;
      ratioP50: number;
    };

    // 4. The bot a user could write instead, against boxbot with its openai provider: real HTTP to
    //    the same emulators (bench/gateway-vs-bare.ts).
    const { compareWithBareBot } = await import('./gateway-vs-bare.ts');
    const bare: BareComparison = await compareWithBareBot({
      bare: endpoints.bare,
      boxbot: endpoints.boxbot,
      openaiBaseURL: endpoints.openaiBaseURL,
      addChats: async (bot, chatIds) => {
        for (const chatId of chatIds) await ask({ op: 'addChat', chatId, bot });
      },
      inject: (bot, items) => ask<number>({ op: 'inject', items, bot }),
      now,
      dataDir: join(root, 'vs-bare'),
    });
    const samples = overhead.length;
    const stages = Object.fromEntries(
      Object.entries({ ...stageMs, model: model.reduce((a, b) => a + b, 0) }).map(([k, v]) => [k, r2(v / samples)]),
    ) as Record<keyof typeof stageMs, number>;

    const ms = (xs: number[], q: number) => r2(quantile(xs, q));
    const figures = {
      conversations: CONVERSATIONS,
      messages: TOTAL,
      throughputMsgPerSec: r2(TOTAL / seconds),
      throughputSec: r2(seconds),
      // CPU per message over the throughput run (until the gateway is idle): the main thread's
      // (the gateway's own work), and the whole process's (the emulator thread and libuv's pool too).
      cpuMsPerMsg: cpu0 === undefined || cpu1 === undefined ? NaN : r2((cpu1 - cpu0) / TOTAL),
      processCpuMsPerMsg: r2((processCpu.user + processCpu.system) / 1000 / TOTAL),
      overheadP50Ms: ms(overhead, 0.5),
      overheadP99Ms: ms(overhead, 0.99),
      overheadMeanMs: r2(overhead.reduce((a, b) => a + b, 0) / overhead.length),
      storeMsPerMsg: r2(union(storeSpans) / overhead.length),
      offsetWriteMsPerMsg: r2(spent.offsetMs / overhead.length),
      platformMsPerMsg: r2(spent.platformMs / overhead.length),
      endToEndP50Ms: ms(e2e.slice(warmup), 0.5),
      modelP50Us: r2(quantile(model, 0.5) * 1000),
      baselineSendP50Ms: ms(baseline.slice(warmup), 0.5),
      baselineSendP99Ms: ms(baseline.slice(warmup), 0.99),
      overheadVsSendRatio: r2(quantile(overhead, 0.5) / quantile(baseline.slice(warmup), 0.5)),
      underLoadP50Ms: ms(loaded, 0.5),
      underLoadP99Ms: ms(loaded, 0.99),
      memoryPerConversationKb: r2((h1 - h0) / CONVERSATIONS / 1024),
      memoryPerConversationWithoutCodeKb: r2((h1 - h0 - (code1 - code0)) / CONVERSATIONS / 1024),
      stagesMeanMs: stages,
      vsBareBot: bare,
      rssDeltaMb: r2((rss1 - rss0) / 1024 / 1024),
      lost: check.lost,
      duplicated: check.duplicated,
      outOfOrder: check.outOfOrder,
      gatewayAnsweredTwice: answeredTwice,
      gatewayNeverAnswered: neverAnswered,
      sendMessagePerMsg: perMessage('sendMessage'),
      editMessageTextPerMsg: perMessage('editMessageText'),
      sendChatActionPerMsg: perMessage('sendChatAction'),
      getUpdatesCalls: (callsAfter.getUpdates ?? 0) - (callsBefore.getUpdates ?? 0),
      storeWriteP50Ms100: storeFigures.writeP50Ms100,
      storeWriteP50Ms100k: storeFigures.writeP50Ms100k,
      storeWriteRatioP50: storeFigures.ratioP50,
      targets: {
        overheadP50Le5ms: quantile(overhead, 0.5) <= 5,
        overheadLe2xSend: quantile(overhead, 0.5) <= 2 * quantile(baseline.slice(warmup), 0.5),
        storeLe1msPerMsg: union(storeSpans) / overhead.length <= 1,
        throughputGe1000: TOTAL / seconds >= 1000,
        idleConversationLe6KiB: (h1 - h0) / CONVERSATIONS / 1024 <= 6,
        burstGeHalfBareBot: bare.burstRatio >= 0.5,
        pacedP50Le2xBareBot: bare.pacedP50Ratio <= 2,
        noLostDuplicatedOrOutOfOrder:
          check.lost + check.duplicated + check.outOfOrder + answeredTwice + neverAnswered === 0,
        storeWrite100kLe2x: storeFigures.ratioP50 <= 2,
      },
      model: 'in-process instant provider (no HTTP); emulator in a worker thread',
    };
    console.log(
      `gateway bench (${CONVERSATIONS} conversations x ${PER_CONVERSATION} messages through the Telegram emulator, ` +
        `long polling; instant in-process model)`,
    );
    console.log(
      `  throughput ${figures.throughputMsgPerSec} messages/s (${TOTAL} messages in ${figures.throughputSec} s, all ` +
        `queued at once); CPU per message ${figures.cpuMsPerMsg} ms on the gateway's thread ` +
        `(${figures.processCpuMsPerMsg} ms the whole process, emulator included)`,
    );
    console.log(
      `  overhead per message (received → answer delivered, minus model time ${figures.modelP50Us} µs), light load: ` +
        `p50 ${figures.overheadP50Ms} ms, p99 ${figures.overheadP99Ms} ms   target p50 <= 2x a bare sendMessage`,
    );
    console.log(
      `    mean ${figures.overheadMeanMs} ms, of which store operations ${figures.storeMsPerMsg} ms and awaited ` +
        `platform calls ${figures.platformMsPerMsg} ms; besides, the poller's offset ` +
        `write ${figures.offsetWriteMsPerMsg} ms per update`,
    );
    console.log(
      `    by stage, mean ms per message: ${Object.entries(stages)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    console.log(
      `  baseline: bare sendMessage round trip p50 ${figures.baselineSendP50Ms} ms ` +
        `(p99 ${figures.baselineSendP99Ms}); overhead / baseline = ${figures.overheadVsSendRatio}x; platform → ` +
        `delivered p50 ${figures.endToEndP50Ms} ms`,
    );
    console.log(
      `  under full load (queueing included): p50 ${figures.underLoadP50Ms} ms, p99 ${figures.underLoadP99Ms} ms`,
    );
    console.log(
      `  platform calls per message: sendMessage ${figures.sendMessagePerMsg}, ` +
        `editMessageText ${figures.editMessageTextPerMsg}, sendChatAction ${figures.sendChatActionPerMsg}; ` +
        `getUpdates ${figures.getUpdatesCalls}`,
    );
    console.log(
      `  memory per idle conversation ${figures.memoryPerConversationKb} KiB heap (rss +${figures.rssDeltaMb} MiB ` +
        `over the run; ${figures.memoryPerConversationWithoutCodeKb} KiB without the code compiled meanwhile)   ` +
        `target <= 6 KiB`,
    );
    console.log(
      `  vs a bare grammY + OpenAI SDK bot (real HTTP to the Telegram and LLM emulators; boxbot with its openai ` +
        `provider): burst ${bare.boxbot.burstMsgPerSec} vs ${bare.bare.burstMsgPerSec} msg/s = ${bare.burstRatio}x ` +
        `(goal >= 0.5x); paced p50 ${bare.boxbot.pacedP50Ms} vs ${bare.bare.pacedP50Ms} ms = ` +
        `${bare.pacedP50Ratio}x (goal <= 2x; p99 ${bare.boxbot.pacedP99Ms} vs ${bare.bare.pacedP99Ms} ms)`,
    );
    console.log(
      `  replies lost ${figures.lost}, duplicated ${figures.duplicated}, out of order ${figures.outOfOrder} ` +
        `(gateway: answered twice ${answeredTwice}, never ${neverAnswered})   target 0`,
    );
    console.log(
      storeRun
        ? `  store write p50 at 100 conversations ${figures.storeWriteP50Ms100} ms, at ` +
            `100,000 ${figures.storeWriteP50Ms100k} ms: ${figures.storeWriteRatioP50}x   target <= 2x`
        : '  store write at 100 vs 100,000 conversations: left out (BENCH_GATEWAY_QUICK=1)',
    );
    console.log(JSON.stringify(figures));
  } finally {
    await gateway.stop();
    await store.close();
    await ask({ op: 'close' });
    await worker.terminate();
    await rm(root, { recursive: true, force: true, maxRetries: 3 });
  }
}

if (isMainThread) await gatewayThread();
else await emulatorThread();
