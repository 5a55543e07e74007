// OutboundQueue on its own, against an adapter whose calls the test holds open and releases:
// order within a conversation, parallel conversations, replies before edits before typing,
// coalesced edits, deduplicated typing, retries of retryable failures only, a 429 pausing the
// whole bot, what a stopping gateway's queue no longer retries, fenced calls (replicas) handed back
// once their conversation is another replica's, and close() rejecting what still waits.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AdapterCapabilities, ChannelAdapter, OutboundTarget } from '../../src/adapters/index.ts';
import { AdapterApiError, AdapterNetworkError } from '../../src/adapters/index.ts';
import { OutboundQueue } from '../../src/gateway/outbound-queue.ts';
import { GatewayStoppingError } from '../../src/runner/ports.ts';
import { waitUntil } from '../helpers.ts';

const target = (chat: string): OutboundTarget => ({ conversationKey: `telegram:${chat}`, chatId: chat });

/**
 * An adapter recording calls; with `hold`, each call waits until the test releases it; `fail` decides a call's error.
 */
class HeldAdapter implements ChannelAdapter {
  readonly platform = 'telegram' as const;
  readonly calls: string[] = [];
  hold = false;
  fail: ((call: string, n: number) => Error | undefined) | undefined;
  private waiting: (() => void)[] = [];
  private n = 0;
  constructor(
    readonly capabilities: AdapterCapabilities = {
      edit: true,
      typing: true,
      threads: false,
      maxTextLength: 100,
      editIntervalMs: 5,
      typingIntervalMs: 5000,
    },
  ) {}
  private async call(name: string): Promise<void> {
    this.calls.push(name);
    const err = this.fail?.(name, ++this.n);
    if (this.hold) await new Promise<void>((r) => this.waiting.push(r));
    if (err) throw err;
  }
  /** Calls waiting to be released. */
  get held(): number {
    return this.waiting.length;
  }
  release(): void {
    for (const r of this.waiting.splice(0)) r();
  }
  async send(t: OutboundTarget, text: string) {
    await this.call(`send ${t.chatId} ${text}`);
    return { messageId: `m-${text}` };
  }
  async edit(t: OutboundTarget, id: string, text: string) {
    await this.call(`edit ${t.chatId} ${id} ${text}`);
  }
  async typing(t: OutboundTarget) {
    await this.call(`typing ${t.chatId}`);
  }
  async start() {}
  async stop() {}
  routes() {
    return [];
  }
  identity() {
    return { id: 'bot', name: 'bot' };
  }
}

describe('OutboundQueue', () => {
  test('one conversation: one call at a time, in order; resolves with the platform id', async () => {
    const a = new HeldAdapter();
    a.hold = true;
    const q = new OutboundQueue(a);
    const sent = [q.send(target('1'), 'one'), q.send(target('1'), 'two'), q.edit(target('1'), 'm-one', 'one!')];
    await waitUntil(() => a.held === 1, 'the first send', 5000);
    assert.deepEqual(a.calls, ['send 1 one'], 'the second waits for the first');
    assert.equal(q.size, 3);
    while (a.calls.length < 3 || a.held) {
      a.release();
      await new Promise((r) => setImmediate(r));
    }
    assert.deepEqual(await Promise.all(sent), [{ messageId: 'm-one' }, { messageId: 'm-two' }, undefined]);
    assert.deepEqual(a.calls, ['send 1 one', 'send 1 two', 'edit 1 m-one one!']);
    assert.equal(q.size, 0);
  });

  test('different conversations are in flight at once, up to the concurrency', async () => {
    const a = new HeldAdapter();
    a.hold = true;
    const q = new OutboundQueue(a, { concurrency: 2 });
    const sent = ['1', '2', '3'].map((c) => q.send(target(c), 'hi'));
    await waitUntil(() => a.held === 2, 'two sends in flight', 5000);
    assert.deepEqual(a.calls, ['send 1 hi', 'send 2 hi']);
    a.hold = false;
    a.release();
    await Promise.all(sent);
    assert.deepEqual(a.calls, ['send 1 hi', 'send 2 hi', 'send 3 hi']);
  });

  test('waiting items go replies first, then edits, then typing', async () => {
    const a = new HeldAdapter();
    a.hold = true;
    const q = new OutboundQueue(a, { concurrency: 1 });
    const first = q.send(target('0'), 'busy');
    await waitUntil(() => a.held === 1, 'the first send', 5000);
    const rest = [q.typing(target('1')), q.edit(target('2'), 'm-x', 'edited'), q.send(target('3'), 'reply')];
    a.hold = false;
    a.release();
    await Promise.all([first, ...rest]);
    assert.deepEqual(a.calls, ['send 0 busy', 'send 3 reply', 'edit 2 m-x edited', 'typing 1']);
  });

  test('a newer edit of a message replaces the one still waiting; both callers resolve', async () => {
    const a = new HeldAdapter();
    a.hold = true;
    const q = new OutboundQueue(a);
    const first = q.send(target('1'), 'start');
    await waitUntil(() => a.held === 1, 'the first send', 5000);
    const edits = [
      q.edit(target('1'), 'm-start', 'v1'),
      q.edit(target('1'), 'm-start', 'v2'),
      q.edit(target('1'), 'm-start', 'v3'),
    ];
    a.hold = false;
    a.release();
    await Promise.all([first, ...edits]);
    assert.deepEqual(a.calls, ['send 1 start', 'edit 1 m-start v3']);
  });

  test('typing: one waiting signal per conversation; none where the platform has no typing', async () => {
    const a = new HeldAdapter();
    a.hold = true;
    const q = new OutboundQueue(a, { concurrency: 1 });
    const first = q.send(target('0'), 'busy');
    await waitUntil(() => a.held === 1, 'the first send', 5000);
    const typing = [q.typing(target('1')), q.typing(target('1')), q.typing(target('2'))];
    a.hold = false;
    a.release();
    await Promise.all([first, ...typing]);
    assert.deepEqual(a.calls, ['send 0 busy', 'typing 1', 'typing 2']);

    const none = new HeldAdapter({
      edit: true,
      typing: false,
      threads: false,
      maxTextLength: 100,
      editIntervalMs: 5,
      typingIntervalMs: 5000,
    });
    await new OutboundQueue(none).typing(target('1'));
    assert.deepEqual(none.calls, []);
  });

  const retryCases: { name: string; error: () => Error; failures: number; calls: number; rejects?: RegExp }[] = [
    {
      name: 'a 503 is retried until it succeeds',
      error: () => new AdapterApiError('telegram', 503, 'Service Unavailable'),
      failures: 2,
      calls: 3,
    },
    {
      name: 'a network failure is retried until it succeeds',
      error: () => new AdapterNetworkError('telegram', 'ECONNRESET'),
      failures: 1,
      calls: 2,
    },
    {
      name: 'a 502 storm is retried until it ends: a reply is never dropped',
      error: () => new AdapterApiError('telegram', 502, 'Bad Gateway'),
      failures: 10,
      calls: 11,
    },
    {
      name: 'a 400 is not retried',
      error: () => new AdapterApiError('telegram', 400, 'chat not found'),
      failures: 10,
      calls: 1,
      rejects: /chat not found/,
    },
    { name: 'an unknown error is not retried', error: () => new Error('bug'), failures: 10, calls: 1, rejects: /bug/ },
  ];
  for (const c of retryCases) {
    test(c.name, async () => {
      const a = new HeldAdapter();
      a.fail = (_call, n) => (n <= c.failures ? c.error() : undefined);
      const q = new OutboundQueue(a, { backoffMs: 1, maxBackoffMs: 2 });
      const sent = q.send(target('1'), 'hi');
      if (c.rejects) await assert.rejects(sent, c.rejects);
      else assert.deepEqual(await sent, { messageId: 'm-hi' });
      assert.equal(a.calls.length, c.calls);
    });
  }

  test('a failed reply goes back first in its conversation: its retry precedes what was queued behind it', async () => {
    const a = new HeldAdapter();
    a.hold = true;
    a.fail = (_call, n) => (n === 1 ? new AdapterNetworkError('telegram', 'ECONNRESET') : undefined);
    const q = new OutboundQueue(a, { concurrency: 1, backoffMs: 1, maxBackoffMs: 1 });
    const sent = [q.send(target('1'), 'a'), q.send(target('2'), 'b'), q.send(target('1'), 'c')];
    await waitUntil(() => a.held === 1, 'the first try of a', 5000);
    // a fails; while it waits out its backoff, b (another conversation) may go, before or after a's
    // retry depending on the machine's speed; c waits behind a in its conversation either way.
    a.release();
    await waitUntil(() => a.held === 1 && a.calls.length === 2, 'the next call in flight', 5000);
    a.hold = false;
    a.release();
    await Promise.all(sent);
    assert.deepEqual(
      a.calls.filter((c) => c.startsWith('send 1 ')),
      ['send 1 a', 'send 1 a', 'send 1 c'],
      "a's retry goes before c, queued behind it",
    );
    assert.deepEqual(
      a.calls.filter((c) => c.startsWith('send 2 ')),
      ['send 2 b'],
    );
  });

  test('a failing typing signal is never retried and never rejects', async () => {
    const a = new HeldAdapter();
    a.fail = () => new AdapterApiError('telegram', 503, 'Service Unavailable');
    await new OutboundQueue(a, { backoffMs: 1 }).typing(target('1'));
    assert.deepEqual(a.calls, ['typing 1']);
  });

  test("a 429 pauses the whole bot: another conversation's reply waits for the retry", async () => {
    const a = new HeldAdapter();
    let limited = 0;
    a.fail = (_call, n) => (n === 1 ? new AdapterApiError('telegram', 429, 'Too Many Requests', 300) : undefined);
    const q = new OutboundQueue(a, { onRateLimited: () => limited++ });
    const first = q.send(target('1'), 'one');
    await waitUntil(() => limited === 1, 'the 429', 5000);
    const second = q.send(target('2'), 'two');
    await Promise.all([first, second]);
    assert.deepEqual(
      a.calls,
      ['send 1 one', 'send 1 one', 'send 2 two'],
      'conversation 2 did not pass during the pause',
    );
    assert.equal(limited, 1);
  });

  test('a history read waits behind replies, its 429 pauses the bot, a failing one stops after 4 tries', async () => {
    const a = new HeldAdapter();
    let limited = 0;
    const q = new OutboundQueue(a, { backoffMs: 1, concurrency: 1, onRateLimited: () => limited++ });
    const calls: string[] = [];
    let n = 0;
    const page = () => {
      calls.push(`read ${++n}`);
      if (n === 1) return Promise.reject(new AdapterApiError('discord', 429, 'You are being rate limited.', 200));
      return Promise.resolve(`page ${n}`);
    };
    a.hold = true;
    const reply = q.send(target('1'), 'one');
    await waitUntil(() => a.held === 1, 'the reply in flight', 5000);
    const read = q.read('history:discord', page);
    const second = q.send(target('2'), 'two');
    a.hold = false;
    a.release();
    assert.equal(await read, 'page 2', 'the read was tried again after the 429');
    await Promise.all([reply, second]);
    assert.deepEqual(a.calls, ['send 1 one', 'send 2 two'], 'both replies went before the read');
    assert.deepEqual(calls, ['read 1', 'read 2']);
    assert.equal(limited, 1, 'the read’s 429 paused the bot');
    let tries = 0;
    const down = () => {
      tries++;
      return Promise.reject(new AdapterApiError('discord', 503, 'Service Unavailable'));
    };
    await assert.rejects(q.read('history:discord', down), /Service Unavailable/);
    assert.equal(tries, 4, 'a read failing with 5xx is tried 4 times, then the backfill is told');
  });

  test('a rate gate that cannot be read does not hold sends (a database down must not silence the bot)', async () => {
    const a = new HeldAdapter();
    const gate = {
      remaining: async (): Promise<number> => {
        throw new Error('connection refused');
      },
      pause: async (): Promise<void> => {
        throw new Error('connection refused');
      },
    };
    const q = new OutboundQueue(a, { gate });
    assert.deepEqual(await q.send(target('1'), 'one'), { messageId: 'm-one' });
    assert.deepEqual(a.calls, ['send 1 one']);
  });

  // Without stopRetrying the calls would wait out a minute's backoff: the timeout makes that a failure.
  const stopTitle =
    'stopRetrying(): what waits on a backoff or a 429 pause is handed back, a new failure is not retried';
  test(stopTitle, { timeout: 30_000 }, async () => {
    // A reply backing off (a 60 s backoff: only stopRetrying can end its wait in this test).
    const a = new HeldAdapter();
    a.fail = (call) => (call.startsWith('send 1') ? new AdapterNetworkError('telegram', 'ECONNRESET') : undefined);
    const q = new OutboundQueue(a, { backoffMs: 60_000, maxBackoffMs: 60_000 });
    const backingOff = q.send(target('1'), 'one');
    await waitUntil(() => a.calls.length === 1, 'the first try', 5000);
    q.stopRetrying();
    await assert.rejects(backingOff, /not retried: the gateway is stopping/);
    // What can go still goes; what fails now reaches its caller after one try.
    assert.deepEqual(await q.send(target('2'), 'two'), { messageId: 'm-two' });
    await assert.rejects(q.send(target('1'), 'again'), /ECONNRESET/);
    assert.deepEqual(a.calls, ['send 1 one', 'send 2 two', 'send 1 again']);
    q.close();

    // The whole bot paused by a 429 (retry after 60 s): every reply waiting is handed back.
    const b = new HeldAdapter();
    b.fail = (_call, n) => (n === 1 ? new AdapterApiError('telegram', 429, 'Too Many Requests', 60_000) : undefined);
    let limited = 0;
    const p = new OutboundQueue(b, { onRateLimited: () => limited++ });
    const paused = [p.send(target('1'), 'one')];
    await waitUntil(() => limited === 1, 'the 429', 5000);
    paused.push(p.send(target('2'), 'two'));
    p.stopRetrying();
    for (const sent of paused) await assert.rejects(sent, /not retried: the gateway is stopping/);
    assert.deepEqual(b.calls, ['send 1 one']);
    p.close();
  });

  test('a fenced call is asked before each try: once its conversation is not ours, it goes back unsent', async () => {
    const a = new HeldAdapter();
    a.fail = (_call, n) => (n === 1 ? new AdapterNetworkError('telegram', 'socket hang up') : undefined);
    const q = new OutboundQueue(a, { backoffMs: 50 });
    const ours = new Set(['telegram:1', 'telegram:2']);
    const owns = (key: string) => ours.has(key);
    const lost = q.send(target('1'), 'one', undefined, owns);
    await waitUntil(() => a.calls.length === 1, 'the first try', 5000);
    ours.delete('telegram:1'); // another replica owns conversation 1 now, while this send backs off
    await assert.rejects(lost, (e: unknown) => e instanceof GatewayStoppingError && e.handedOver);
    await q.send(target('2'), 'two', undefined, owns);
    await q.send(target('1'), 'unfenced'); // not an answer of a turn (a job's post): not fenced
    await assert.rejects(q.edit(target('1'), 'm-one', 'one!', undefined, owns), GatewayStoppingError);
    assert.deepEqual(a.calls, ['send 1 one', 'send 2 two', 'send 1 unfenced'], 'no second try of the lost one');
  });

  test('close() rejects what still waits', async () => {
    const a = new HeldAdapter();
    a.hold = true;
    const q = new OutboundQueue(a, { concurrency: 1 });
    const first = q.send(target('1'), 'one');
    await waitUntil(() => a.held === 1, 'the first send', 5000);
    const waiting = q.send(target('2'), 'two');
    q.close();
    await assert.rejects(waiting, /outbound queue closed/);
    a.release();
    await first;
    assert.deepEqual(a.calls, ['send 1 one']);
  });
});
