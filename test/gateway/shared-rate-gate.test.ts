// Two replicas' outbound queues for one bot on one PostgreSQL database: a 429 with retry_after
// that one replica gets holds the other's sends too, since the platform counts the bot's calls
// (the shared rate gate). The platform is a fake adapter per replica writing to one call log.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { AdapterCapabilities, ChannelAdapter, OutboundTarget } from '../../src/adapters/index.ts';
import { AdapterApiError } from '../../src/adapters/index.ts';
import { OutboundQueue } from '../../src/gateway/outbound-queue.ts';
import { openPostgresStore } from '../../src/store/postgres/index.ts';
import { waitUntil } from '../helpers.ts';
import { type PostgresServer, startPostgres } from '../store/postgres-server.ts';

const started = await startPostgres();
const server: PostgresServer | undefined = 'missing' in started ? undefined : started;
const skip = 'missing' in started ? `PostgreSQL tests skipped: ${started.missing}` : false;
if (skip) console.log(`# ${skip}`);
after(() => server?.stop());

const target = (chat: string): OutboundTarget => ({ conversationKey: `telegram:${chat}`, chatId: chat });

/** One replica's Telegram adapter: every call lands in the platform's shared log; `limit` 429s the next call. */
class PlatformAdapter implements ChannelAdapter {
  readonly platform = 'telegram' as const;
  readonly capabilities: AdapterCapabilities = {
    edit: true,
    typing: true,
    threads: false,
    maxTextLength: 100,
    editIntervalMs: 5,
    typingIntervalMs: 5000,
  };
  limitNext: number | undefined;
  constructor(
    private readonly replica: string,
    private readonly log: string[],
  ) {}
  async send(t: OutboundTarget, text: string) {
    this.log.push(`${this.replica} send ${t.chatId} ${text}`);
    const retryAfterMs = this.limitNext;
    this.limitNext = undefined;
    if (retryAfterMs !== undefined) throw new AdapterApiError('telegram', 429, 'Too Many Requests', retryAfterMs);
    return { messageId: `m-${text}` };
  }
  async edit() {}
  async typing() {}
  async start() {}
  async stop() {}
  routes() {
    return [];
  }
  identity() {
    return { id: 'bot', name: 'bot' };
  }
}

test("a 429 seen by one replica holds the other replica's sends until the retry", { skip }, async () => {
  const url = await (server as PostgresServer).database();
  const [storeA, storeB] = await Promise.all([openPostgresStore(url), openPostgresStore(url)]);
  const calls: string[] = [];
  const a = new PlatformAdapter('A', calls);
  const b = new PlatformAdapter('B', calls);
  const qa = new OutboundQueue(a, { ...(storeA.rateGates ? { gate: storeA.rateGates } : {}) });
  const qb = new OutboundQueue(b, { ...(storeB.rateGates ? { gate: storeB.rateGates } : {}) });
  try {
    // Long enough that the pause is still running when the test looks for it on a loaded machine.
    a.limitNext = 5000;
    const first = qa.send(target('1'), 'one');
    await waitUntil(() => calls.length === 1, "replica A's first try", 5000);
    // The pause is in the database once A has it: B's reply to another chat comes after A's retry.
    await waitUntil(async () => ((await storeB.rateGates?.remaining('telegram')) ?? 0) > 0, 'the shared pause', 5000);
    const second = qb.send(target('2'), 'two');
    // While the database says the bot is paused, replica B has sent nothing: the calls are read
    // first, then the pause, so a pause still running covers everything read before it.
    for (;;) {
      const seen = [...calls];
      const left = (await storeB.rateGates?.remaining('telegram')) ?? 0;
      if (left <= 0) break;
      assert.ok(!seen.some((c) => c.startsWith('B ')), `replica B sent during the pause: ${seen.join(', ')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await Promise.all([first, second]);
    assert.deepEqual(
      [...calls].sort(),
      ['A send 1 one', 'A send 1 one', 'B send 2 two'],
      'A retried once, B sent once, after the pause',
    );
  } finally {
    qa.close();
    qb.close();
    await Promise.all([storeA.close(), storeB.close()]);
  }
});

test('a pause already set to end later is not shortened by a shorter one', { skip }, async () => {
  const url = await (server as PostgresServer).database();
  const store = await openPostgresStore(url);
  try {
    const gates = store.rateGates;
    assert.ok(gates, 'the PostgreSQL store shares send pauses');
    assert.equal(await gates.remaining('telegram'), 0);
    await gates.pause('telegram', 60_000);
    await gates.pause('telegram', 1);
    assert.ok((await gates.remaining('telegram')) > 1000, 'the longer pause stands');
    assert.equal(await gates.remaining('slack'), 0, 'one bot pausing does not hold another');
  } finally {
    await store.close();
  }
});
