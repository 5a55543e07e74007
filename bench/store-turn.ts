// Store-turn benchmark: the file store's calls of one chat turn, as the gateway makes them, with
// no gateway, platform or model around them (the gateway bench's stage figures move with the
// machine's load; these move less): the memory digest's two reads, the history read and write,
// the usage charge (conversation and user) with the history written behind it (the two overlap, as
// in the agent runner), and the delivery log's accept and the message answered (the usual answer,
// one the history holds as sent, has no outbox entry: src/gateway/turn.ts).
// Measured one turn at a time (per call, p50) and with 64 conversations at once (turns per
// second), against a bare synced append (O_DSYNC) timed interleaved with the single turns.
import { constants } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '../src/core/message.ts';
import { createFileStore, type Store } from '../src/store/index.ts';
import { quantile, r2 } from './stats.ts';

const CONVERSATIONS = 1000;
const SINGLE_TURNS = 600;
const WARMUP = 50;
const PARALLEL = 64;
const PARALLEL_TURNS = 3000;

type Call = 'memory' | 'history' | 'usage' | 'accept' | 'outbox';
const CALLS: Call[] = ['memory', 'history', 'usage', 'accept', 'outbox'];

/** One turn of conversation `c`, numbered `i`; adds each call's time to `into`. */
async function turn(store: Store, c: number, i: number, histories: Map<number, Message[]>, into?: Times) {
  const key = `telegram:${1_000_000 + c}`;
  const userKey = `telegram:${1_000_000 + c}`;
  const at = new Date().toISOString();
  const id = `telegram:${c}:${i}`;
  const timed = async (call: Call, f: () => Promise<unknown>) => {
    const t = performance.now();
    await f();
    into?.[call].push(performance.now() - t);
  };
  await timed('accept', () =>
    store.delivery.accept({
      id,
      platform: 'telegram',
      conversationKey: key,
      chatId: String(c),
      userId: String(c),
      userName: `U${c}`,
      text: `hello ${i}`,
      isDirect: true,
      mentionsBot: false,
      attachments: [],
      receivedAt: at,
      raw: {},
    }),
  );
  await timed('memory', () =>
    Promise.all([
      store.memories.list({ kind: 'user', userKey }),
      store.memories.list({ kind: 'conversation', conversationKey: key }),
    ]),
  );
  const next: Message[] = [
    ...(histories.get(c) ?? []),
    { role: 'user', content: [{ type: 'text', text: `hello ${i}` }] },
    { role: 'assistant', content: [{ type: 'text', text: `the answer to hello ${i}` }] },
  ];
  histories.set(c, next);
  const charge = { usage: { inputTokens: 10, outputTokens: 3 }, costUsd: 0.0001, model: 'openai/gpt-5.4' };
  // As the agent runner saves a turn: the history is written once the charge is in the store's line
  // (UsageStore.add's `queued`), so the journal syncs both in one batch; the two calls overlap.
  const history = async () => {
    await store.conversations.get(key);
    await store.conversations.setMessages(key, next);
  };
  let saved: Promise<void> | undefined;
  await timed('usage', () =>
    store.usage.add(
      { conversationKey: key, userKey, at, ...charge },
      { queued: () => (saved = timed('history', history)) },
    ),
  );
  await (saved ?? timed('history', history));
  // An answer the history holds as sent has no outbox entry: its end is the message answered (turn.ts).
  await timed('outbox', () => store.delivery.finish(id));
}

type Times = Record<Call, number[]>;

const root = await mkdtemp(join(tmpdir(), 'boxbot-bench-store-turn-'));
try {
  // One turn at a time, each followed by a bare synced append of a delivery-log-sized line.
  const single = createFileStore(join(root, 'single'));
  const times: Times = { memory: [], history: [], usage: [], accept: [], outbox: [] };
  const turns: number[] = [];
  const appends: number[] = [];
  const log = await open(
    join(root, 'bare.log'),
    constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC,
  );
  const line = `${JSON.stringify({ op: 'put', id: 'x'.repeat(40), text: 'y'.repeat(200) })}\n`;
  const histories = new Map<number, Message[]>();
  for (let i = 0; i < WARMUP + SINGLE_TURNS; i++) {
    const measured = i >= WARMUP;
    const t = performance.now();
    await turn(single, i % 30, i, histories, measured ? times : undefined);
    if (measured) turns.push(performance.now() - t);
    const a = performance.now();
    await log.write(line);
    if (measured) appends.push(performance.now() - a);
  }
  await log.close();
  await single.close();

  // Many conversations at once: what group commit and the file system's batching of syncs give.
  const many = createFileStore(join(root, 'many'));
  const manyHistories = new Map<number, Message[]>();
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let i = next++; i < PARALLEL_TURNS; i = next++) await turn(many, i % CONVERSATIONS, i, manyHistories);
    }),
  );
  const parallelSec = (performance.now() - t0) / 1000;
  await many.close();

  const p50 = (xs: number[]) => r2(quantile(xs, 0.5));
  const bare = quantile(appends, 0.5);
  const figures = {
    turnP50Ms: p50(turns),
    turnP99Ms: r2(quantile(turns, 0.99)),
    callsP50Ms: Object.fromEntries(CALLS.map((c) => [c, p50(times[c])])) as Record<Call, number>,
    bareSyncedAppendP50Ms: r2(bare),
    turnVsBareAppend: r2(quantile(turns, 0.5) / bare),
    parallelTurnsPerSec: Math.round(PARALLEL_TURNS / parallelSec),
  };
  console.log(
    `store-turn bench (file store; ${SINGLE_TURNS} turns one at a time, then ${PARALLEL} conversations at once)`,
  );
  console.log(
    `  one turn's store calls p50 ${figures.turnP50Ms} ms (p99 ${figures.turnP99Ms}) = ` +
      `${figures.turnVsBareAppend}x a bare synced append (${figures.bareSyncedAppendP50Ms} ms)`,
  );
  console.log(`    by call, p50 ms: ${CALLS.map((c) => `${c} ${figures.callsP50Ms[c]}`).join(', ')}`);
  console.log(`  ${PARALLEL} conversations at once: ${figures.parallelTurnsPerSec} turns/s   target >= 1000`);
  console.log(JSON.stringify(figures));
} finally {
  await rm(root, { recursive: true, force: true, maxRetries: 3 });
}
