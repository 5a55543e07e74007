// Scale-out benchmark, PostgreSQL part: a conversation write through the store at 100 vs 100,000
// stored conversations (a write must not grow with their number; target <= 2x), against a bare
// single-row upsert of the same bytes and a `SELECT 1` round trip on the same server, interleaved
// in the same run. Runs on the embedded PostgreSQL the tests use.
// Then messages per second with 1 and with 3 gateway replicas (replicas-throughput.ts), the
// 1-replica runs being the baseline of the 3-replica ones, all in this run.
import { randomInt } from 'node:crypto';
import type { Message } from '../src/agent/types.ts';
import type { Store } from '../src/store/index.ts';
import { createDb } from '../src/store/postgres/db.ts';
import { openPostgresStore } from '../src/store/postgres/index.ts';
import { startPostgres } from '../test/store/postgres-server.ts';
import { measureThroughput, type Throughput } from './replicas-throughput.ts';
import { interleaved, quantile, r2 } from './stats.ts';

const SMALL = 100;
const LARGE = 100_000;
const WARMUP = 50;
const SAMPLES = 600;

const history: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'What changed in src/main.ts since yesterday?' }] },
  { role: 'assistant', content: [{ type: 'text', text: 'One commit: the store is now wired into main. '.repeat(3) }] },
];
const next: Message = { role: 'user', content: [{ type: 'text', text: 'Thanks, and the tests?' }] };
const keyOf = (i: number): string => `telegram:-100${i}:${i % 7}`;

const server = await startPostgres();
if ('missing' in server) {
  console.error(`replicas bench needs PostgreSQL: ${server.missing}`);
  process.exit(1);
}
try {
  const [smallUrl, largeUrl] = [await server.database(), await server.database()];
  const small = await openPostgresStore(smallUrl);
  const large = await openPostgresStore(largeUrl);
  const t0 = performance.now();
  for (const [url, n] of [
    [smallUrl, SMALL],
    [largeUrl, LARGE],
  ] as const) {
    const db = createDb(url);
    const doc = JSON.stringify(history);
    await db.query(
      `INSERT INTO boxbot_conversations (key, platform, created_at, updated_at, messages, has_answer)
       SELECT 'telegram:-100' || i || ':' || (i % 7), 'telegram', now()::text, now()::text, $1, true
       FROM generate_series(0, $2 - 1) AS i`,
      [doc, n],
    );
    await db.query('ANALYZE boxbot_conversations');
    await db.close();
  }
  const seedSec = (performance.now() - t0) / 1000;
  const count = (await large.conversations.keys()).length;
  if (count !== LARGE) throw new Error(`expected ${LARGE} conversations, listed ${count}`);

  const raw = createDb(smallUrl);
  await raw.query('CREATE TABLE bench_plain (key text PRIMARY KEY, doc text NOT NULL)');
  const bytes = JSON.stringify([...history, next]);
  const plain = () =>
    raw.query('INSERT INTO bench_plain VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET doc = $2', [
      keyOf(randomInt(SMALL)),
      bytes,
    ]);
  const ping = () => raw.query('SELECT 1');
  const write = (store: Store, n: number) => () =>
    store.conversations.setMessages(keyOf(randomInt(n)), [...history, next]);

  const series = await interleaved(
    { small: write(small, SMALL), large: write(large, LARGE), plain, ping },
    WARMUP,
    SAMPLES,
  );
  await small.close();
  await large.close();
  await raw.close();

  const p50 = (xs: number[]): number => r2(quantile(xs, 0.5));
  const p99 = (xs: number[]): number => r2(quantile(xs, 0.99));
  const figures = {
    pgWriteP50Ms100: p50(series.small),
    pgWriteP99Ms100: p99(series.small),
    pgWriteP50Ms100k: p50(series.large),
    pgWriteP99Ms100k: p99(series.large),
    ratioP50: r2(quantile(series.large, 0.5) / quantile(series.small, 0.5)),
    ratioP99: r2(quantile(series.large, 0.99) / quantile(series.small, 0.99)),
    plainUpsertP50Ms: p50(series.plain),
    pingP50Ms: p50(series.ping),
    storeVsPlainP50: r2(quantile(series.small, 0.5) / quantile(series.plain, 0.5)),
    seedSec: r2(seedSec),
  };
  console.log(`replicas bench: PostgreSQL store (${SAMPLES} writes per series, interleaved)`);
  console.log(
    `  store write at ${SMALL} conversations:     p50 ${figures.pgWriteP50Ms100} ms, p99 ${figures.pgWriteP99Ms100} ms`,
  );
  console.log(
    `  store write at ${LARGE} conversations: p50 ${figures.pgWriteP50Ms100k} ms, p99 ${figures.pgWriteP99Ms100k} ms`,
  );
  console.log(`  100k / 100 = ${figures.ratioP50}x (p50), ${figures.ratioP99}x (p99)   target <= 2x`);
  console.log(
    `  baseline: bare upsert p50 ${figures.plainUpsertP50Ms} ms, SELECT 1 p50 ${figures.pingP50Ms} ms; ` +
      `store / bare upsert = ${figures.storeVsPlainP50}x`,
  );
  console.log(`  seeding took ${figures.seedSec} s`);

  // Each run on its own fresh database, so none inherits another's rows; in the order 1, 3, 3, 1
  // so a machine getting busier or quieter during the bench weighs on both counts alike.
  const load = { conversations: 60, messages: 5, inFlight: 16 };
  const runs = { 1: [] as Throughput[], 3: [] as Throughput[] };
  for (const n of [1, 3, 3, 1] as const) runs[n].push(await measureThroughput(n, await server.database(), load));
  const pooled = (rs: Throughput[]) => {
    const messages = rs.reduce((s, r) => s + r.messages, 0);
    const seconds = rs.reduce((s, r) => s + r.seconds, 0);
    return { messages, seconds, perSecond: messages / seconds };
  };
  const one = pooled(runs[1]);
  const three = pooled(runs[3]);
  const throughput = {
    msgPerSec1: r2(one.perSecond),
    msgPerSec3: r2(three.perSecond),
    ratio3to1: r2(three.perSecond / one.perSecond),
    messages: one.messages,
    seconds1: r2(one.seconds),
    seconds3: r2(three.seconds),
  };
  console.log(
    `replicas bench: throughput (${load.conversations} conversations x ${load.messages} messages, ` +
      `Telegram webhooks round-robin, ${load.inFlight} in flight; two runs of each, 1 3 3 1)`,
  );
  console.log(
    `  1 replica:  ${throughput.msgPerSec1} msg/s (${one.messages} messages in ${throughput.seconds1} s)  [baseline]`,
  );
  console.log(`  3 replicas: ${throughput.msgPerSec3} msg/s (${three.messages} messages in ${throughput.seconds3} s)`);
  console.log(`  3 / 1 = ${throughput.ratio3to1}x`);
  console.log(JSON.stringify({ ...figures, ...throughput }));
} finally {
  await server.stop();
}
