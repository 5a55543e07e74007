// Store benchmark: conversation write latency with 100 vs 100,000 stored conversations (the
// cost of a write must not grow with their number; target <= 2x), against a plain
// fs.writeFile + rename of the same bytes measured in the same run.
import { randomInt } from 'node:crypto';
import { mkdir, mkdtemp, open, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Message } from '../src/agent/types.ts';
import { type Conversation, conversationFile, createFileStore, type Store } from '../src/store/index.ts';
import { interleaved, quantile, r2, timeMs } from './stats.ts';

const SMALL = 100;
const LARGE = 100_000;
const WARMUP = 50;
const SAMPLES = 600;

const history: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'What changed in src/main.ts since yesterday?' }] },
  {
    role: 'assistant',
    content: [{ type: 'tool-call', id: 't1', name: 'git_log', input: { path: 'src/main.ts', since: '1d' } }],
  },
  {
    role: 'user',
    content: [
      { type: 'tool-result', id: 't1', name: 'git_log', content: 'a1b2c3 wire the store\n'.repeat(4), isError: false },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: 'One commit: the store is now wired into main. '.repeat(3) }] },
];
const next: Message = { role: 'user', content: [{ type: 'text', text: 'Thanks, and the tests?' }] };
const keyOf = (i: number): string => `telegram:-100${i}:${i % 7}`;

/** Writes `n` conversation documents straight to disk, many at a time (setup, not measured). */
async function seed(dir: string, n: number): Promise<void> {
  const at = new Date().toISOString();
  const made = new Map<string, Promise<unknown>>();
  let i = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (i < n) {
        const key = keyOf(i++);
        const file = join(dir, conversationFile(key));
        const d = dirname(file);
        if (!made.has(d)) made.set(d, mkdir(d, { recursive: true }));
        await made.get(d);
        const doc: Conversation = { key, platform: 'telegram', createdAt: at, updatedAt: at, messages: history };
        await writeFile(file, JSON.stringify(doc));
      }
    }),
  );
}

const root = await mkdtemp(join(tmpdir(), 'boxbot-bench-store-'));
try {
  const smallDir = join(root, 'small');
  const largeDir = join(root, 'large');
  const t0 = performance.now();
  await seed(smallDir, SMALL);
  await seed(largeDir, LARGE);
  const seedSec = (performance.now() - t0) / 1000;

  const small = createFileStore(smallDir);
  const large = createFileStore(largeDir);
  const listMs = await timeMs(() => large.conversations.keys());
  const count = (await large.conversations.keys()).length;
  if (count !== LARGE) throw new Error(`expected ${LARGE} conversations, listed ${count}`);

  // The same bytes the store writes, for the baselines.
  const bytes = JSON.stringify({
    key: keyOf(1),
    platform: 'telegram',
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    messages: [...history, next],
  });
  const baseDir = join(root, 'baseline');
  await mkdir(baseDir);
  let seq = 0;
  const plain = async (): Promise<void> => {
    const file = join(baseDir, `c${randomInt(SMALL)}.json`);
    const tmp = `${file}.${++seq}.tmp`;
    await writeFile(tmp, bytes);
    await rename(tmp, file);
  };
  const plainFsync = async (): Promise<void> => {
    const file = join(baseDir, `c${randomInt(SMALL)}.json`);
    const tmp = `${file}.${++seq}.tmp`;
    const fh = await open(tmp, 'w');
    await fh.writeFile(bytes);
    await fh.sync();
    await fh.close();
    await rename(tmp, file);
  };
  const write = (store: Store, n: number) => () =>
    store.conversations.setMessages(keyOf(randomInt(n)), [...history, next]);

  const series = await interleaved(
    { small: write(small, SMALL), large: write(large, LARGE), plain, plainFsync },
    WARMUP,
    SAMPLES,
  );
  await small.close();
  await large.close();

  const p50 = (xs: number[]): number => r2(quantile(xs, 0.5));
  const p99 = (xs: number[]): number => r2(quantile(xs, 0.99));
  const figures = {
    writeP50Ms100: p50(series.small),
    writeP99Ms100: p99(series.small),
    writeP50Ms100k: p50(series.large),
    writeP99Ms100k: p99(series.large),
    ratioP50: r2(quantile(series.large, 0.5) / quantile(series.small, 0.5)),
    ratioP99: r2(quantile(series.large, 0.99) / quantile(series.small, 0.99)),
    plainWriteRenameP50Ms: p50(series.plain),
    plainWriteRenameP99Ms: p99(series.plain),
    plainFsyncP50Ms: p50(series.plainFsync),
    storeVsPlainP50: r2(quantile(series.small, 0.5) / quantile(series.plain, 0.5)),
    storeVsPlainFsyncP50: r2(quantile(series.small, 0.5) / quantile(series.plainFsync, 0.5)),
    docBytes: Buffer.byteLength(bytes),
    list100kMs: r2(listMs),
    seedSec: r2(seedSec),
  };
  console.log(
    `store bench (${SAMPLES} writes per series, ${figures.docBytes}-byte conversation documents, interleaved)`,
  );
  console.log(
    `  store write at ${SMALL} conversations:     p50 ${figures.writeP50Ms100} ms, p99 ${figures.writeP99Ms100} ms`,
  );
  console.log(
    `  store write at ${LARGE} conversations: p50 ${figures.writeP50Ms100k} ms, p99 ${figures.writeP99Ms100k} ms`,
  );
  console.log(`  100k / 100 = ${figures.ratioP50}x (p50), ${figures.ratioP99}x (p99)   target <= 2x`);
  console.log(
    `  baseline fs.writeFile+rename: p50 ${figures.plainWriteRenameP50Ms} ms, ` +
      `p99 ${figures.plainWriteRenameP99Ms} ms; with fsync p50 ${figures.plainFsyncP50Ms} ms`,
  );
  console.log(
    `  store / plain = ${figures.storeVsPlainP50}x, store / plain+fsync = ${figures.storeVsPlainFsyncP50}x (p50)`,
  );
  console.log(`  listing 100k keys ${figures.list100kMs} ms; seeding took ${figures.seedSec} s`);
  console.log(JSON.stringify(figures));
} finally {
  await rm(root, { recursive: true, force: true, maxRetries: 3 });
}
