// The store contract suite: every backend runs it (file-store.test.ts, memory-store.test.ts,
// postgres-store.test.ts). A harness opens stores on one persistent location; the file-family
// backends also give raw access to the stored bytes, for the cases only files have (a torn or
// corrupt file, the previous layout), which are registered for them alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Message } from '../../src/agent/types.ts';
import {
  type ApprovalRecord,
  type CorruptReport,
  encodeName,
  type JobLogEntry,
  type JobRecord,
  type JsonValue,
  OTHER_MODELS,
  type OutboxEntry,
  type Store,
  StoreCorruptError,
  StoreError,
  type StoreOptions,
  UNRECORDED_MODEL,
  type UsageCharge,
  type UsageTotals,
} from '../../src/store/index.ts';
import { waitUntil } from '../helpers.ts';
import { inbound, pendingIds, reply, seen } from './delivery-fixtures.ts';

/** One persistent location (a directory, a Map) and raw access to it. */
export interface StoreHarness {
  /** A store on this location; a second call is a restart. */
  open(opts?: StoreOptions): Store;
  /** Every stored path, relative, `/`-separated. */
  listRaw(): Promise<string[]>;
  readRaw(path: string): Promise<string | undefined>;
  writeRaw(path: string, text: string): Promise<void>;
  cleanup(): Promise<void>;
}

const msg = (role: Message['role'], text: string): Message => ({ role, content: [{ type: 'text', text }] });
const texts = (ms: Message[] | undefined): string[] =>
  (ms ?? []).map((m) => (m.content[0]?.type === 'text' ? m.content[0].text : '?'));

/** A job as the scheduler would write it. */
export function job(id: string, over: Partial<JobRecord> = {}): JobRecord {
  return {
    id,
    name: `job ${id}`,
    cron: '0 9 * * 1-5',
    prompt: 'digest',
    target: 'web:abc',
    access: 'read-only',
    timeoutMs: 60_000,
    enabled: true,
    overlap: 'skip',
    ...over,
  };
}

/** A run log of `jobId` numbered `n`. */
export function runLog(jobId: string, n: number): JobLogEntry {
  const at = new Date(Date.UTC(2024, 0, 1, 9, n)).toISOString();
  return {
    jobId,
    startedAt: at,
    finishedAt: at,
    outcome: 'final',
    delivered: `m${n}`,
    usage: { inputTokens: n, outputTokens: 1 },
    costUsd: 0.01 * n,
  };
}

/** The stored path of a conversation key's document. */
async function conversationPath(h: StoreHarness, key: string): Promise<string> {
  const name = `${encodeName(key)}.json`;
  const path = (await h.listRaw()).find((p) => p.startsWith('conversations/') && p.endsWith(`/${name}`));
  assert.ok(path, `no file for ${key}`);
  return path;
}

/**
 * Registers the contract tests for one backend. `files`: the backend keeps files (raw access
 * works), so the cases about bytes on disk apply too.
 */
export function storeContract(
  backend: string,
  makeHarness: () => Promise<StoreHarness>,
  { files = true }: { files?: boolean } = {},
): void {
  async function withHarness(fn: (h: StoreHarness) => Promise<void>): Promise<void> {
    const h = await makeHarness();
    try {
      await fn(h);
    } finally {
      await h.cleanup();
    }
  }
  const it = (name: string, fn: (h: StoreHarness) => Promise<void>): void => {
    test(`${backend}: ${name}`, () => withHarness(fn));
  };
  /** A case about the bytes of files: only for file-family backends. */
  const itFiles = (name: string, fn: (h: StoreHarness) => Promise<void>): void => {
    if (files) it(name, fn);
  };

  it('conversations: get, replace, reset and list keys', async (h) => {
    const s = h.open();
    assert.equal(await s.conversations.get('telegram:-100123:45'), undefined);
    const first = await s.conversations.setMessages('telegram:-100123:45', [msg('user', 'hi')]);
    const c = await s.conversations.setMessages('telegram:-100123:45', [
      msg('user', 'hi'),
      msg('assistant', 'hello'),
      msg('user', 'more'),
    ]);
    assert.equal(c.createdAt, first.createdAt, 'a replaced history keeps its conversation');
    assert.deepEqual(texts(c.messages), ['hi', 'hello', 'more']);
    assert.equal(c.platform, 'telegram');
    assert.equal(c.key, 'telegram:-100123:45');
    await s.conversations.setMessages('slack:T1:C9:1712.33', [msg('user', 'yo')]);
    await s.conversations.setMessages('web:abc', [msg('user', 'web')]);
    assert.deepEqual(await s.conversations.keys(), ['slack:T1:C9:1712.33', 'telegram:-100123:45', 'web:abc']);

    await s.conversations.setMessages('web:abc', [msg('user', 'summary')]);
    assert.deepEqual(texts((await s.conversations.get('web:abc'))?.messages), ['summary']);

    await s.conversations.reset('telegram:-100123:45');
    const reset = await s.conversations.get('telegram:-100123:45');
    assert.deepEqual(reset?.messages, []);
    assert.equal(reset?.createdAt, c.createdAt);
    assert.deepEqual(
      texts((await s.conversations.get('slack:T1:C9:1712.33'))?.messages),
      ['yo'],
      'reset touched only its conversation',
    );
    assert.deepEqual(
      await s.conversations.keys(),
      ['slack:T1:C9:1712.33', 'telegram:-100123:45', 'web:abc'],
      'a reset conversation stays listed',
    );
    await s.close();
  });

  it('conversations: where each part came from is kept as stored, across a restart', async (h) => {
    const stored: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'fetch it' }] },
      { role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'web_fetch', input: { url: 'x' } }] },
      {
        role: 'user',
        content: [
          {
            type: 'tool-result',
            id: 'c1',
            name: 'web_fetch',
            content: 'page',
            isError: false,
            from: { tool: 'web_fetch', network: true, mcp: 'kb', untrusted: 'the result of web_fetch(url="x")' },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }], untrusted: ['the result of web_fetch(url="x")'] },
    ];
    const s = h.open();
    await s.conversations.setMessages('telegram:7', stored);
    await s.close();
    const again = h.open();
    assert.deepEqual((await again.conversations.get('telegram:7'))?.messages, stored);
    await again.close();
  });

  it('every message part type round-trips', async (h) => {
    const s = h.open();
    const m: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'read it' },
          { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', text: 'hmm', signature: 'sig' },
          { type: 'tool-call', id: 't1', name: 'read', input: { file_path: 'a.txt', n: [1, 2] } },
        ],
      },
      { role: 'user', content: [{ type: 'tool-result', id: 't1', name: 'read', content: 'data', isError: false }] },
    ];
    await s.conversations.setMessages('discord:1:2:3', m);
    await s.close();
    assert.deepEqual((await h.open().conversations.get('discord:1:2:3'))?.messages, m);
  });

  it('a restart (new store on the same location) sees everything', async (h) => {
    const s = h.open({ jobLogLimit: 10 });
    await s.conversations.setMessages('telegram:42', [msg('user', 'q'), msg('assistant', 'a')]);
    assert.equal(await seen(s, 'telegram:update:1'), true);
    await s.delivery.accept(inbound('in-1', 'telegram:42', { text: 'answered' }));
    await s.delivery.accept(inbound('in-2', 'telegram:42', { text: 'unanswered', threadId: '7' }));
    await s.delivery.finish('in-1');
    await s.delivery.putOutbox(reply('out-1', 'telegram:42', ['part 1', 'part 2'], { streamMessageId: 'tg-msg-99' }));
    await s.delivery.receipt('out-1', 0, 'tg-msg-100');
    await s.kv.set('telegram.offset', 1234);
    await s.jobs.put(job('digest'));
    await s.jobs.appendLog(runLog('digest', 1));
    await s.close();

    const r = h.open({ jobLogLimit: 10 });
    assert.deepEqual(texts((await r.conversations.get('telegram:42'))?.messages), ['q', 'a']);
    assert.equal(
      await r.delivery.accept(inbound('telegram:update:1')),
      false,
      'a redelivered event is still a duplicate',
    );
    const pending = await r.delivery.pending();
    assert.deepEqual(
      pending,
      [{ message: { ...inbound('in-2', 'telegram:42', { text: 'unanswered', threadId: '7' }), raw: null } }],
      'the message comes back, without its raw payload',
    );
    const out = await r.delivery.pendingOutbox();
    assert.deepEqual(out, [
      {
        ...reply('out-1', 'telegram:42', ['part 1', 'part 2'], { streamMessageId: 'tg-msg-99' }),
        receipts: ['tg-msg-100', null],
        createdAt: out[0]?.createdAt,
      },
    ]);
    assert.equal(await r.kv.get('telegram.offset'), 1234);
    assert.deepEqual(await r.jobs.get('digest'), job('digest'));
    assert.deepEqual(await r.jobs.logs('digest'), [runLog('digest', 1)]);
    await r.close();
  });

  it('outbox: a resumed reply sends only the chunks without receipts, and put never resets receipts', async (h) => {
    const sent: string[] = [];
    let next = 1;
    // What the gateway does: write, then send chunk by chunk, recording each receipt.
    async function deliver(s: Store, entry: OutboxEntry, crashAfter = Infinity): Promise<void> {
      for (const [i, chunk] of entry.chunks.entries()) {
        if (entry.receipts[i]) continue;
        if (i >= crashAfter) throw new Error('crash');
        sent.push(chunk);
        await s.delivery.receipt(entry.id, i, `m${next++}`);
      }
      await s.delivery.finishOutbox(entry.id);
    }
    const s = h.open();
    await s.delivery.putOutbox(reply('reply-7', 'web:abc', ['one', 'two', 'three']));
    await assert.rejects(deliver(s, (await s.delivery.pendingOutbox())[0]!, 1), /crash/);
    await s.delivery.putOutbox(reply('reply-7', 'web:abc', ['X']));
    const again = await s.delivery.pendingOutbox();
    assert.deepEqual(
      again.map((e) => [e.chunks, e.receipts]),
      [
        [
          ['one', 'two', 'three'],
          ['m1', null, null],
        ],
      ],
      'a repeated put keeps the stored entry and its receipts',
    );
    await s.close();

    const r = h.open();
    for (const e of await r.delivery.pendingOutbox()) await deliver(r, e);
    assert.deepEqual(sent, ['one', 'two', 'three'], 'each chunk sent exactly once');
    assert.deepEqual(await r.delivery.pendingOutbox(), []);

    await r.delivery.accept(inbound('m8'));
    await r.delivery.putOutbox(reply('reply-8', 'web:abc', ['x']));
    await r.delivery.failOutbox('reply-8', 'chat not found', 'm8');
    assert.deepEqual(await r.delivery.pendingOutbox(), [], 'a failed entry is not resumed');
    assert.deepEqual(await r.delivery.pending(), [], 'nor is the message it answered run again');
    await r.delivery.failOutbox('never-put', 'gone');
    await assert.rejects(
      r.delivery.receipt('reply-8', 5, 'm'),
      (e: unknown) => e instanceof StoreError && e.code === 'not-found',
    );
    await assert.rejects(
      r.delivery.receipt('nope', 0, 'm'),
      (e: unknown) => e instanceof StoreError && e.code === 'not-found',
    );
    await r.close();
    if (files)
      assert.match(
        (await h.readRaw('delivery.log')) ?? '',
        /chat not found/,
        'the failed reply is kept for inspection',
      );
  });

  it('outbox: a file without bytes is refused before anything is stored, on every backend', async (h) => {
    const s = h.open();
    const bad = { name: 'a.txt', mimeType: 'text/plain' } as unknown as {
      name: string;
      mimeType: string;
      bytes: Uint8Array;
    };
    await assert.rejects(
      s.delivery.putOutbox(reply('nb-1', 'slack:T1:C1', ['text'], { files: [bad] })),
      (e) => e instanceof StoreError && e.code === 'invalid' && /file 0 has no bytes/.test(e.message),
    );
    assert.deepEqual(await s.delivery.pendingOutbox(), [], 'nothing stored');
    await s.close();
  });

  it('outbox: an upload under way is journaled per file and comes back after a restart until a receipt', async (h) => {
    const bytes = new Uint8Array([1, 2, 3]);
    const file = (name: string) => ({ name, mimeType: 'text/plain', bytes });
    const s = h.open();
    await s.delivery.putOutbox(reply('up-1', 'slack:T1:C1', ['text'], { files: [file('a.txt'), file('b.txt')] }));
    await s.delivery.putOutbox(reply('up-2', 'slack:T1:C1', ['no files']));
    assert.equal((await s.delivery.pendingOutbox())[0]?.fileHandles, undefined, 'nothing journaled: no handles');
    await s.delivery.fileHandle('up-1', 1, 'started');
    await s.delivery.fileHandle('up-1', 1, 'F0001'); // the platform's handle replaces the marker
    for (const [id, index] of [
      ['up-1', 2],
      ['up-1', -1],
      ['up-2', 0],
      ['nope', 0],
    ] as const)
      await assert.rejects(
        s.delivery.fileHandle(id, index, 'F9'),
        (e: unknown) => e instanceof StoreError && e.code === 'not-found',
        `${id} file ${index}`,
      );
    await s.close();
    const r = h.open();
    const [entry] = await r.delivery.pendingOutbox();
    assert.deepEqual(entry?.fileHandles, [null, 'F0001']);
    assert.deepEqual(entry?.fileReceipts, [null, null]);
    await r.delivery.fileReceipt('up-1', 1, 'F0001');
    assert.deepEqual((await r.delivery.pendingOutbox())[0]?.fileReceipts, [null, 'F0001']);
    await r.delivery.finishOutbox('up-1');
    await r.delivery.finishOutbox('up-2');
    assert.deepEqual(await r.delivery.pendingOutbox(), []);
    await r.close();
  });

  it('failed replies are listed newest failure first, with what the platform said; delivered ones not', async (h) => {
    let clock = Date.parse('2026-11-01T00:00:00.000Z');
    const s = h.open({ now: () => clock });
    await s.delivery.putOutbox(reply('a', 'telegram:1', ['first ', 'part']));
    await s.delivery.putOutbox(reply('b', 'slack:T1:C1', ['second']));
    await s.delivery.putOutbox(reply('c', 'telegram:1', ['delivered']));
    clock += 1000;
    await s.delivery.failOutbox('a', 'Bad Request: chat not found');
    clock += 1000;
    await s.delivery.failOutbox('b', 'channel_not_found');
    await s.delivery.finishOutbox('c');
    await s.close();
    const r = h.open({ now: () => clock });
    const failed = await r.delivery.failedOutbox();
    assert.deepEqual(
      failed.map((f) => [f.id, f.conversationKey, f.text, f.error]),
      [
        ['b', 'slack:T1:C1', 'second', 'channel_not_found'],
        ['a', 'telegram:1', 'first part', 'Bad Request: chat not found'],
      ],
    );
    assert.deepEqual(
      failed.map((f) => Date.parse(f.failedAt)),
      [clock, clock - 1000],
      'each says when the send gave up',
    );
    await r.close();
  });

  itFiles('failed replies are kept within their retention, then leave the log; a pending reply stays', async (h) => {
    let clock = Date.parse('2026-11-01T00:00:00.000Z');
    const opts = { now: () => clock, failedOutbox: { maxCount: 3, maxAgeMs: 3600_000 } };
    const s = h.open(opts);
    await s.delivery.putOutbox(reply('waiting', 'web:abc', ['still to send']));
    for (let i = 0; i < 40; i++) {
      clock += 1000;
      await s.delivery.putOutbox(reply(`r${i}`, 'web:abc', [`text ${i}`]));
      await s.delivery.failOutbox(`r${i}`, `refusal-${i}.`);
    }
    await s.close();
    const failedIn = async () =>
      [...((await h.readRaw('delivery.log')) ?? '').matchAll(/refusal-(\d+)\./g)].map((m) => m[1]);
    const r = h.open(opts);
    assert.deepEqual(
      (await r.delivery.pendingOutbox()).map((e) => e.id),
      ['waiting'],
    );
    await r.close();
    assert.deepEqual([...new Set(await failedIn())], ['37', '38', '39'], 'only the newest three failures are kept');
    // A day later: the failures are past their age and go at start; the pending reply (older still) stays.
    clock += 24 * 3600_000;
    const t = h.open(opts);
    assert.deepEqual(
      (await t.delivery.pendingOutbox()).map((e) => e.id),
      ['waiting'],
    );
    await t.close();
    assert.deepEqual(await failedIn(), []);
  });

  itFiles('a failed reply is aged by when it was refused, not by when it was made', async (h) => {
    let clock = Date.parse('2026-11-01T00:00:00.000Z');
    const opts = { now: () => clock, failedOutbox: { maxCount: 2, maxAgeMs: 3600_000 } };
    const s = h.open(opts);
    await s.delivery.putOutbox(reply('slow', 'web:abc', ['retried for days']));
    clock += 2 * 24 * 3600_000;
    for (const id of ['b', 'c']) {
      clock += 1000;
      await s.delivery.putOutbox(reply(id, 'web:abc', [id]));
      await s.delivery.failOutbox(id, `refusal-${id}.`);
    }
    clock += 1000;
    await s.delivery.failOutbox('slow', 'refusal-slow.');
    await s.close();
    const failedIn = async () =>
      [...((await h.readRaw('delivery.log')) ?? '').matchAll(/refusal-(\w+)\./g)].map((m) => m[1]).sort();
    const restart = async () => {
      const r = h.open(opts);
      await r.delivery.pendingOutbox(); // a start prunes by the same rule, and rewrites the log if it did
      await r.close();
    };
    await restart();
    assert.deepEqual(
      [...new Set(await failedIn())],
      ['c', 'slow'],
      'the reply refused just now is kept, with the one refused last before it',
    );
    clock += 2 * 3600_000;
    await restart();
    assert.deepEqual(await failedIn(), [], 'an hour after its refusal it goes');
  });

  it('inbound journal: pending in acceptance order, a redelivery keeps the first record, finish removes', async (h) => {
    const s = h.open();
    for (let i = 0; i < 12; i++)
      assert.equal(await s.delivery.accept(inbound(`m${i}`, `web:c${i % 3}`, { text: `${i}` })), true);
    assert.equal(
      await s.delivery.accept(inbound('m0', 'web:c0', { text: 'changed' })),
      false,
      'a redelivery is refused',
    );
    assert.equal((await s.delivery.pending())[0]?.message.text, '0', 'and the first record kept');
    await s.delivery.finish('m3');
    await s.delivery.finish('m3');
    await s.close();
    const r = h.open();
    const ids = await pendingIds(r);
    await r.close();
    assert.deepEqual(ids, ['m0', 'm1', 'm2', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10', 'm11']);
  });

  it('unanswered work read by conversation: its messages and replies alone, in order', async (h) => {
    const s = h.open();
    for (let i = 0; i < 9; i++) await s.delivery.accept(inbound(`m${i}`, `web:c${i % 3}`, { text: `${i}` }));
    await s.delivery.putOutbox(reply('r1', 'web:c1', ['one']));
    await s.delivery.putOutbox(reply('r0', 'web:c0', ['zero']));
    await s.delivery.putOutbox(reply('r2', 'web:c1', ['two']));
    await s.delivery.finish('m4');
    await s.delivery.finishOutbox('r2');
    await s.close();
    const r = h.open();
    assert.deepEqual(
      (await r.delivery.pending('web:c1')).map((p) => p.message.id),
      ['m1', 'm7'],
    );
    assert.deepEqual(
      (await r.delivery.pending('web:c0')).map((p) => p.message.text),
      ['0', '3', '6'],
    );
    assert.deepEqual(await r.delivery.pending('web:none'), []);
    assert.equal((await r.delivery.pending()).length, 8, 'without a key, every conversation’s');
    assert.deepEqual(
      (await r.delivery.pendingOutbox('web:c1')).map((e) => [e.id, e.chunks]),
      [['r1', ['one']]],
    );
    assert.deepEqual(await r.delivery.pendingOutbox('web:c2'), []);
    assert.deepEqual(
      (await r.delivery.pendingOutbox()).map((e) => e.id),
      ['r1', 'r0'],
    );
    await r.close();
  });

  it('a conversation’s messages resume in the platform’s order, whatever order they were saved in', async (h) => {
    const s = h.open();
    // Replicas holding updates through an outage: the newest saved first, one chat's in between.
    const tg = (update: number, chat: string) =>
      inbound(`telegram:1:${update}`, `telegram:${chat}`, { platform: 'telegram', order: String(update) });
    await s.delivery.accept(tg(10, 'a'));
    await s.delivery.accept(tg(11, 'b'));
    await s.delivery.accept(tg(9, 'a'));
    // Slack ts and Discord snowflakes: a fraction, and numbers past a double's precision.
    const slack = (ts: string) => inbound(`slack:${ts}`, 'slack:T:C:1', { platform: 'slack', order: ts });
    await s.delivery.accept(slack('1712.000100'));
    await s.delivery.accept(slack('1711.900000'));
    const dc = (id: string) => inbound(`discord:${id}`, 'discord:dm:7', { platform: 'discord', order: id });
    await s.delivery.accept(dc('1234567890123456790'));
    await s.delivery.accept(dc('1234567890123456789'));
    await s.delivery.accept(inbound('web:x', 'web:w')); // no platform order: save order
    await s.close();
    const r = h.open();
    assert.deepEqual(
      (await r.delivery.pending('telegram:a')).map((p) => p.message.id),
      ['telegram:1:9', 'telegram:1:10'],
    );
    assert.deepEqual(
      (await r.delivery.pending()).map((p) => p.message.id),
      [
        'telegram:1:9',
        'telegram:1:11',
        'telegram:1:10',
        'slack:1711.900000',
        'slack:1712.000100',
        'discord:1234567890123456789',
        'discord:1234567890123456790',
        'web:x',
      ],
      'each conversation in its platform order, in the places its messages were saved',
    );
    await r.close();
  });

  it('kv: values of every JSON type', async (h) => {
    const s = h.open();
    await s.kv.set('telegram.offset', 99);
    await s.kv.set('slack.state', { cursor: 'abc', seen: [1, 'two', null, true] });
    assert.equal(await s.kv.get('telegram.offset'), 99);
    assert.deepEqual(await s.kv.get('slack.state'), { cursor: 'abc', seen: [1, 'two', null, true] });
    assert.equal(await s.kv.get('constructor'), undefined, 'no prototype keys leak through');
    await s.kv.set('telegram.offset', 100);
    assert.equal(await s.kv.get('telegram.offset'), 100, 'a value is replaced');
    await s.close();
  });

  it('jobs: put, list, update, remove (with logs); invalid jobs refused', async (h) => {
    const s = h.open();
    await s.jobs.put(job('b'));
    await s.jobs.put(job('a', { timezone: 'Europe/Berlin', budgetUsd: 0.5 }));
    assert.deepEqual(
      (await s.jobs.list()).map((j) => j.id),
      ['a', 'b'],
    );
    const updated = await s.jobs.update('b', { enabled: false, lastRunAt: '2024-01-01T09:00:00.000Z' });
    assert.equal(updated.enabled, false);
    assert.deepEqual(await s.jobs.get('b'), updated);
    await assert.rejects(
      s.jobs.update('zzz', { enabled: false }),
      (e: unknown) => e instanceof StoreError && e.code === 'not-found',
    );
    await assert.rejects(
      s.jobs.put({ ...job('c'), overlap: 'sometimes' } as unknown as JobRecord),
      (e: unknown) => e instanceof StoreError && e.code === 'invalid',
    );
    await s.jobs.appendLog(runLog('b', 1));
    assert.equal(await s.jobs.remove('b'), true);
    assert.equal(await s.jobs.remove('b'), false);
    assert.deepEqual(await s.jobs.logs('b'), [], 'logs go with the job');
    assert.deepEqual(
      (await s.jobs.list()).map((j) => j.id),
      ['a'],
    );
    await s.close();
  });

  itFiles('a failure between writing the new version and committing it leaves the old one readable', async (h) => {
    let failNext = false;
    const s = h.open({
      beforeCommit: () => {
        if (failNext) throw new Error('simulated crash before rename');
      },
    });
    await s.conversations.setMessages('web:abc', [msg('user', 'old')]);
    await s.kv.set('telegram.offset', 1);
    failNext = true;
    await assert.rejects(
      s.conversations.setMessages('web:abc', [msg('user', 'old'), msg('user', 'new')]),
      /simulated crash/,
    );
    await assert.rejects(s.kv.set('telegram.offset', 2), /simulated crash/);
    await s.close();
    const r = h.open();
    assert.deepEqual(texts((await r.conversations.get('web:abc'))?.messages), ['old']);
    assert.equal(await r.kv.get('telegram.offset'), 1);
    assert.ok(!(await h.listRaw()).some((p) => p.endsWith('.tmp')), 'a failed write cleans up its temp file');
  });

  it('concurrent updates of one file are all kept', async (h) => {
    const s = h.open({ jobLogLimit: 100 });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => s.conversations.setMessages(`web:busy${i % 4}`, [msg('user', `m${i}`)])),
    );
    for (let k = 0; k < 4; k++)
      assert.deepEqual(
        texts((await s.conversations.get(`web:busy${k}`))?.messages),
        [`m${36 + k}`],
        'the last call wins',
      );
    await Promise.all(Array.from({ length: 30 }, (_, i) => s.kv.set(`k${i}`, i)));
    for (let i = 0; i < 30; i++) assert.equal(await s.kv.get(`k${i}`), i);
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => s.jobs.put(job(`j${i}`))),
      ...Array.from({ length: 20 }, (_, i) => s.jobs.appendLog(runLog('j0', i))),
    ]);
    assert.equal((await s.jobs.list()).length, 20);
    assert.equal((await s.jobs.logs('j0')).length, 20);
    const firsts = await Promise.all(Array.from({ length: 10 }, () => s.delivery.accept(inbound('slack:Ev1'))));
    assert.equal(firsts.filter(Boolean).length, 1, 'exactly one caller handles a duplicate event');
    await s.close();
  });

  itFiles('a corrupt conversation file is moved aside and reported, then the conversation starts fresh', async (h) => {
    const reports: CorruptReport[] = [];
    const first = h.open();
    await first.conversations.setMessages('telegram:7', [msg('user', 'hi')]);
    await first.close(); // its file written (a journaled update's file is written in the background)
    const s = h.open({ onCorrupt: (r) => reports.push(r) });
    const path = await conversationPath(h, 'telegram:7');
    await h.writeRaw(path, '{"key": "telegram:7", "messages": [');
    await assert.rejects(s.conversations.get('telegram:7'), (e: unknown) => {
      assert.ok(e instanceof StoreCorruptError);
      assert.ok(e.file.endsWith(path.split('/').pop() as string), e.message);
      assert.match(e.message, /invalid JSON/);
      return true;
    });
    assert.equal(reports.length, 1);
    const aside = (await h.listRaw()).filter((p) => p.includes('.corrupt-'));
    assert.equal(aside.length, 1);
    assert.ok(aside[0]?.startsWith(`${path}.corrupt-`), aside[0]);
    assert.equal(await h.readRaw(aside[0] as string), '{"key": "telegram:7", "messages": [', 'the bad bytes are kept');
    assert.ok(reports[0]?.movedTo.endsWith(aside[0]?.split('/').pop() as string));
    assert.equal(await s.conversations.get('telegram:7'), undefined);
    await s.conversations.setMessages('telegram:7', [msg('user', 'again')]);
    assert.deepEqual(texts((await s.conversations.get('telegram:7'))?.messages), ['again']);
    await s.close();
  });

  itFiles('wrong-shaped files are corrupt too: jobs, kv, a conversation holding another key', async (h) => {
    const reports: CorruptReport[] = [];
    const s = h.open({ onCorrupt: (r) => reports.push(r) });
    await s.jobs.put(job('a'));
    await h.writeRaw('jobs.json', JSON.stringify({ jobs: { a: { id: 'a', cron: 5 } } }));
    await assert.rejects(
      s.jobs.list(),
      (e: unknown) => e instanceof StoreCorruptError && /jobs\.json/.test(e.message) && /wrong shape/.test(e.message),
    );
    await h.writeRaw('kv.json', '[]');
    assert.equal(await s.kv.get('x'), undefined, 'kv goes on without its corrupt file');
    const first = h.open();
    await first.conversations.setMessages('web:a', [msg('user', 'a')]);
    await first.close(); // its file written (a journaled update's file is written in the background)
    const path = await conversationPath(h, 'web:a');
    const other = JSON.parse((await h.readRaw(path)) as string) as { key: string };
    other.key = 'web:b';
    await h.writeRaw(path, JSON.stringify(other));
    await assert.rejects(s.conversations.get('web:a'), StoreCorruptError);
    assert.deepEqual(
      reports.map((r) => r.file.split(/[/:]/).pop()),
      ['jobs.json', 'kv.json', path.split('/').pop()],
    );
    assert.deepEqual(await s.jobs.list(), []);
    await s.close();
  });

  const corruptKvJsonTitle =
    'a corrupt kv.json is moved aside and reported; the values start over instead of failing the caller';
  itFiles(corruptKvJsonTitle, async (h) => {
    const s = h.open();
    await s.kv.set('telegram.offset', 41);
    await s.close();
    await h.writeRaw('kv.json', '{"values": {"telegram.offset": 4');
    const reports: CorruptReport[] = [];
    const r = h.open({ onCorrupt: (rep) => reports.push(rep) });
    assert.equal(await r.kv.get('telegram.offset'), undefined);
    assert.equal(reports.length, 1);
    assert.match(reports[0]!.file, /kv\.json$/);
    const aside = (await h.listRaw()).filter((p) => p.startsWith('kv.json.corrupt-'));
    assert.equal(aside.length, 1);
    assert.equal(await h.readRaw(aside[0]!), '{"values": {"telegram.offset": 4', 'the bad bytes are kept for an admin');
    await r.kv.set('telegram.offset', 50);
    assert.equal(await r.kv.get('telegram.offset'), 50);
    await h.writeRaw('kv.json', 'garbage');
    await r.kv.set('other', 'x');
    assert.equal(await r.kv.get('other'), 'x', 'a write past a corrupt file starts it over too');
    assert.equal(reports.length, 2);
    await r.close();
  });

  const acceptMarksIdTitle =
    'accept marks the id seen and journals the message (without its raw payload) in one step; a seen id is refused';
  it(acceptMarksIdTitle, async (h) => {
    const s = h.open();
    assert.equal(await s.delivery.accept(inbound('telegram:1:5', 'telegram:1')), true);
    assert.equal(
      await s.delivery.accept(inbound('telegram:1:5', 'telegram:1', { text: 'again' })),
      false,
      'a redelivery while pending',
    );
    await s.delivery.finish('telegram:1:5');
    assert.equal(
      await s.delivery.accept(inbound('telegram:1:5', 'telegram:1')),
      false,
      'a redelivery after the answer',
    );
    await s.close();
    if (files)
      assert.doesNotMatch((await h.readRaw('delivery.log')) ?? '', /platform payload/, 'the raw payload is not stored');
    const r = h.open();
    assert.equal(
      await r.delivery.accept(inbound('telegram:1:5', 'telegram:1')),
      false,
      'still a duplicate after a restart',
    );
    assert.deepEqual(await r.delivery.pending(), []);
    await r.close();
  });

  it("the stored message is a copy: changing the caller's object afterwards changes nothing", async (h) => {
    const s = h.open();
    const m = inbound('m1', 'web:a', { attachments: [{ id: 'f1', name: 'a.txt' }] });
    await s.delivery.accept(m);
    m.text = 'changed';
    m.attachments[0]!.name = 'changed.txt';
    const [p] = await s.delivery.pending();
    assert.equal(p?.message.text, 'hi');
    assert.equal(p?.message.attachments[0]?.name, 'a.txt');
    p!.message.text = 'changed by the reader';
    assert.equal((await s.delivery.pending())[0]?.message.text, 'hi');
    await s.close();
  });

  it('a preview being sent is journaled before its id, and the id replaces that note', async (h) => {
    const s = h.open();
    for (const id of ['m1', 'm2', 'm3']) await s.delivery.accept(inbound(id));
    await s.delivery.notePreviewSending('m1'); // and the process stops before the id
    await s.delivery.notePreviewSending('m2');
    await s.delivery.notePreview('m2', 'p2');
    await s.delivery.notePreview('m3', 'p3');
    await s.delivery.notePreviewSending('m3'); // a preview known is never replaced by not knowing
    await s.delivery.notePreviewSending('nope');
    await s.close();
    const r = h.open();
    assert.deepEqual(
      (await r.delivery.pending()).map((p) => [p.message.id, p.previewMessageId, p.previewSending]),
      [
        ['m1', undefined, true],
        ['m2', 'p2', undefined],
        ['m3', 'p3', undefined],
      ],
    );
    await r.delivery.finish('m1');
    await r.delivery.notePreviewSending('m1');
    assert.deepEqual(
      (await r.delivery.pending()).map((p) => p.message.id),
      ['m2', 'm3'],
    );
    await r.close();
  });

  it('the preview message of a pending answer is journaled and comes back after a restart', async (h) => {
    const s = h.open();
    await s.delivery.accept(inbound('m1'));
    await s.delivery.notePreview('m1', 'p7');
    await s.delivery.notePreview('nope', 'p8');
    await s.close();
    const r = h.open();
    assert.deepEqual(
      (await r.delivery.pending()).map((p) => [p.message.id, p.previewMessageId]),
      [['m1', 'p7']],
    );
    await r.delivery.finish('m1');
    await r.delivery.notePreview('m1', 'p9');
    await r.close();
    if (!files) return;
    assert.doesNotMatch(
      (await h.readRaw('delivery.log')) ?? '',
      /"p8"|"p9"/,
      'a note for a message not pending is dropped',
    );
  });

  it('host-side work on an attachment that started and never ended is counted across restarts', async (h) => {
    const s = h.open();
    await s.delivery.accept(inbound('m1'));
    assert.equal(await s.delivery.startMediaWork('m1', 0), 0);
    await s.delivery.endMediaWork('m1', 0);
    assert.equal(await s.delivery.startMediaWork('m1', 1), 0);
    await s.close(); // the process died inside the work on attachment 1
    const r = h.open();
    assert.equal(await r.delivery.startMediaWork('m1', 0), 0, 'work that ended is not counted');
    await r.delivery.endMediaWork('m1', 0);
    assert.equal(await r.delivery.startMediaWork('m1', 1), 1);
    await r.close(); // and again
    const r2 = h.open();
    assert.equal(await r2.delivery.startMediaWork('m1', 1), 2);
    assert.equal(await r2.delivery.startMediaWork('nope', 0), 0, 'no such message: nothing counted');
    await r2.delivery.endMediaWork('nope', 0);
    await r2.delivery.finish('m1');
    assert.equal(await r2.delivery.startMediaWork('m1', 1), 0, 'answered: nothing counted');
    assert.deepEqual(await pendingIds(r2), []);
    await r2.close();
  });

  it('finishing a reply can mark the message it answers done in the same write', async (h) => {
    const s = h.open();
    await s.delivery.accept(inbound('m1'));
    await s.delivery.accept(inbound('m2'));
    await s.delivery.putOutbox(reply('m1', 'web:a', ['answer']));
    await s.delivery.finishOutbox('m1', 'm1');
    await s.delivery.finishOutbox('never-put', 'm2'); // no such entry, but m2 is answered
    await s.delivery.finishOutbox('m1', 'm1');
    await s.close();
    if (files)
      assert.match(
        (await h.readRaw('delivery.log')) ?? '',
        /\{"op":"sent","id":"m1","answered":"m1"\}\n/,
        'one line for both',
      );
    const r = h.open();
    assert.deepEqual(await r.delivery.pending(), []);
    assert.deepEqual(await r.delivery.pendingOutbox(), []);
    assert.equal(await r.delivery.accept(inbound('m1')), false);
    await r.close();
  });

  it('changes made at once are all kept (one sync may serve many) and come back after a restart', async (h) => {
    const s = h.open();
    const accepted = await Promise.all(
      Array.from({ length: 200 }, (_, i) => s.delivery.accept(inbound(`e${i}`, `web:c${i % 7}`))),
    );
    assert.ok(accepted.every(Boolean));
    await Promise.all([
      ...Array.from({ length: 50 }, (_, i) => s.delivery.finish(`e${i}`)),
      ...Array.from({ length: 30 }, (_, i) => s.delivery.putOutbox(reply(`o${i}`, 'web:c0', ['a', 'b']))),
    ]);
    await Promise.all(Array.from({ length: 30 }, (_, i) => s.delivery.receipt(`o${i}`, 0, `m${i}`)));
    await s.close();
    const r = h.open();
    assert.deepEqual(
      await pendingIds(r),
      Array.from({ length: 150 }, (_, i) => `e${i + 50}`),
      'pending, in acceptance order',
    );
    const out = await r.delivery.pendingOutbox();
    assert.equal(out.length, 30);
    assert.ok(out.every((e, i) => e.id === `o${i}` && e.receipts[0] === `m${i}` && e.receipts[1] === null));
    assert.equal(await r.delivery.accept(inbound('e3')), false);
    await r.close();
  });

  const unreadableLineDeliveryTitle =
    'an unreadable line of the delivery log is reported and the file kept aside; every readable change survives';
  itFiles(unreadableLineDeliveryTitle, async (h) => {
    const s = h.open();
    await s.delivery.accept(inbound('good'));
    await s.delivery.putOutbox(reply('reply', 'web:a', ['x']));
    await s.close();
    const log = (await h.readRaw('delivery.log')) as string;
    await h.writeRaw('delivery.log', `nonsense\n${log}{"op":"put","entry":{"id":"half"}}\n`);
    const reports: CorruptReport[] = [];
    const r = h.open({ onCorrupt: (rep) => reports.push(rep) });
    assert.deepEqual(await pendingIds(r), ['good']);
    assert.deepEqual(
      (await r.delivery.pendingOutbox()).map((e) => e.id),
      ['reply'],
    );
    assert.equal(reports.length, 1);
    assert.match(reports[0]!.reason, /lines 1, 4/);
    assert.ok(
      (await h.listRaw()).some((p) => p.startsWith('delivery.log.corrupt-')),
      'the bad file is kept for an admin',
    );
    await r.delivery.accept(inbound('later'));
    await r.close();
    const t = h.open({ onCorrupt: (rep) => reports.push(rep) });
    assert.deepEqual(await pendingIds(t), ['good', 'later'], 'the rewritten log is clean');
    assert.equal(reports.length, 1);
    await t.close();
  });

  itFiles('a half-written last line of the delivery log (a crash while appending) is dropped silently', async (h) => {
    const s = h.open();
    await seen(s, 'a');
    await seen(s, 'b');
    await s.close();
    const log = (await h.readRaw('delivery.log')) as string;
    await h.writeRaw('delivery.log', `${log}{"op":"seen","id":"c`);
    const reports: CorruptReport[] = [];
    const r = h.open({ onCorrupt: (rep) => reports.push(rep) });
    assert.equal(await r.delivery.accept(inbound('a')), false);
    assert.equal(await seen(r, 'c'), true, 'the torn line was never acknowledged');
    assert.deepEqual(reports, []);
    await r.close();
  });

  /** Two accepted messages and a reply in the log, closed: what the corruption tests start from. */
  async function acceptedTwo(h: StoreHarness): Promise<string> {
    const s = h.open();
    await s.delivery.accept(inbound('one'));
    await s.delivery.accept(inbound('two'));
    await s.close();
    return (await h.readRaw('delivery.log')) as string;
  }

  for (const newline of [true, false]) {
    const wholeButUnreadableTitle =
      `a whole but unreadable last line of the delivery log ` +
      `(${newline ? 'with' : 'without'} its newline) is damage, not a torn append: reported, copy kept, the rest ` +
      `pending`;
    itFiles(wholeButUnreadableTitle, async (h) => {
      const log = await acceptedTwo(h);
      // A record whose bytes were damaged after they were written (nothing cut short).
      const text = `${log}{"op":"accept","at":1,"record":{"id":"three"}} x${newline ? '\n' : ''}`;
      await h.writeRaw('delivery.log', text);
      const reports: CorruptReport[] = [];
      const r = h.open({ onCorrupt: (rep) => reports.push(rep) });
      assert.deepEqual(await pendingIds(r), ['one', 'two'], 'the accepted messages are still pending');
      await r.close();
      assert.equal(reports.length, 1, 'the damage is reported');
      assert.match(reports[0]!.reason, /line 3/);
      const aside = (await h.listRaw()).filter((p) => p.startsWith('delivery.log.corrupt-'));
      assert.equal(aside.length, 1, 'a copy is kept for an admin');
      assert.ok(reports[0]!.movedTo.endsWith(aside[0]!), reports[0]!.movedTo);
      assert.equal(await h.readRaw(aside[0]!), text, 'the copy holds the damaged bytes');
      const t = h.open({ onCorrupt: (rep) => reports.push(rep) });
      assert.deepEqual(await pendingIds(t), ['one', 'two'], 'the rewritten log is clean');
      await t.close();
      assert.equal(reports.length, 1);
    });
  }

  const damagedLineMiddleTitle =
    'a damaged line in the middle of the delivery log keeps the accepted messages on both sides pending';
  itFiles(damagedLineMiddleTitle, async (h) => {
    const log = await acceptedTwo(h);
    const [first, second] = log.split('\n');
    await h.writeRaw('delivery.log', `${first}\n{"op":"accept"\u0000\u0000\n${second}\n`);
    const reports: CorruptReport[] = [];
    const r = h.open({ onCorrupt: (rep) => reports.push(rep) });
    assert.deepEqual(await pendingIds(r), ['one', 'two']);
    await r.close();
    assert.equal(reports.length, 1);
    assert.match(reports[0]!.reason, /line 2/);
    assert.ok((await h.listRaw()).some((p) => p.startsWith('delivery.log.corrupt-')));
  });

  const wholeLastRecordTitle =
    'a whole last record that lost only its newline is kept; a cut-short one is dropped without a report';
  itFiles(wholeLastRecordTitle, async (h) => {
    const log = await acceptedTwo(h);
    const [first, second] = log.split('\n');
    await h.writeRaw('delivery.log', `${first}\n${second}`);
    const reports: CorruptReport[] = [];
    const r = h.open({ onCorrupt: (rep) => reports.push(rep) });
    assert.deepEqual(await pendingIds(r), ['one', 'two']);
    await r.close();
    await h.writeRaw('delivery.log', `${first}\n${second!.slice(0, 40)}`);
    const t = h.open({ onCorrupt: (rep) => reports.push(rep) });
    assert.deepEqual(await pendingIds(t), ['one']);
    assert.equal(await seen(t, 'two'), true, 'the torn accept was never acknowledged');
    await t.close();
    assert.deepEqual(reports, []);
    assert.ok(!(await h.listRaw()).some((p) => p.includes('.corrupt-')), 'nothing set aside for a torn append');
  });

  itFiles('a delivery log written by the previous version loads as it was', async (h) => {
    // Lines exactly as the version before the one delivery record wrote them.
    const message = {
      id: 'telegram:9:1',
      platform: 'telegram',
      conversationKey: 'telegram:9',
      chatId: '9',
      messageId: '41',
      userId: 'u',
      userName: 'Ann',
      text: 'hi',
      isDirect: true,
      mentionsBot: true,
      attachments: [],
      receivedAt: '2026-11-01T00:00:00.000Z',
    };
    const lines = [
      { op: 'seen', id: 'telegram:9:0', at: Date.parse('2026-11-01T00:00:00.000Z') },
      {
        op: 'accept',
        at: Date.parse('2026-11-01T00:00:00.001Z'),
        record: {
          id: 'telegram:9:1',
          conversationKey: 'telegram:9',
          acceptedAt: '2026-11-01T00:00:00.001Z',
          seq: 1,
          message,
        },
      },
      { op: 'preview', id: 'telegram:9:1', messageId: '42' },
      {
        op: 'put',
        entry: {
          id: 'telegram:9:1',
          conversationKey: 'telegram:9',
          target: { conversationKey: 'telegram:9', chatId: '9', replyToMessageId: '41', streamMessageId: '42' },
          chunks: [{ text: 'one' }, { text: 'two' }],
          state: 'pending',
          createdAt: '2026-11-01T00:00:01.000Z',
          updatedAt: '2026-11-01T00:00:01.000Z',
          seq: 2,
        },
      },
      { op: 'receipt', id: 'telegram:9:1', index: 0, messageId: '42', at: '2026-11-01T00:00:02.000Z' },
    ];
    await h.writeRaw('delivery.log', lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const s = h.open({ now: () => Date.parse('2026-11-02T00:00:00.000Z') });
    assert.deepEqual(await s.delivery.pending(), [{ message: { ...message, raw: null }, previewMessageId: '42' }]);
    assert.deepEqual(await s.delivery.pendingOutbox(), [
      {
        id: 'telegram:9:1',
        conversationKey: 'telegram:9',
        target: { conversationKey: 'telegram:9', chatId: '9', replyToMessageId: '41' },
        streamMessageId: '42',
        chunks: ['one', 'two'],
        receipts: ['42', null],
        createdAt: '2026-11-01T00:00:01.000Z',
      },
    ]);
    assert.equal(await s.delivery.accept(inbound('telegram:9:0')), false, 'a seen id stays seen');
    await s.close();
  });

  itFiles(
    'gateway state written by the previous layout (dedupe.log, inbound/, outbox/) is folded in once',
    async (h) => {
      await h.writeRaw('dedupe.log', '[1700000000000,"old-event"]\n[1700000000001,"torn');
      await h.writeRaw(
        'inbound/old-msg.json',
        JSON.stringify({
          id: 'old-msg',
          conversationKey: 'web:a',
          acceptedAt: '2026-11-01T00:00:00.000Z',
          seq: 5,
          message: { text: 'before the upgrade' },
        }),
      );
      await h.writeRaw(
        'outbox/old-reply.json',
        JSON.stringify({
          id: 'old-reply',
          conversationKey: 'web:a',
          target: { chatId: 'a' },
          chunks: [{ text: 'p1', receipt: { messageId: 'm1', sentAt: '2026-11-01T00:00:00.000Z' } }, { text: 'p2' }],
          state: 'pending',
          createdAt: '2026-11-01T00:00:00.000Z',
          updatedAt: '2026-11-01T00:00:00.000Z',
          seq: 6,
        }),
      );
      const now = () => Date.parse('2026-11-02T00:00:00.000Z');
      const s = h.open({ now, dedupe: { maxAgeMs: 1e12, maxCount: 100 } });
      assert.deepEqual(
        (await s.delivery.pending()).map((p) => p.message.text),
        ['before the upgrade'],
      );
      assert.deepEqual(
        (await s.delivery.pendingOutbox()).map((e) => [e.target, e.receipts]),
        [[{ chatId: 'a' }, ['m1', null]]],
      );
      assert.equal(await s.delivery.accept(inbound('old-event')), false);
      assert.equal(await s.delivery.accept(inbound('old-msg')), false);
      await s.close();
      const left = (await h.listRaw()).filter(
        (p) => p === 'dedupe.log' || p.startsWith('inbound/') || p.startsWith('outbox/'),
      );
      assert.deepEqual(left, [], 'the old files are gone once folded in');
      const r = h.open({ now, dedupe: { maxAgeMs: 1e12, maxCount: 100 } });
      assert.equal((await r.delivery.pending()).length, 1, 'nothing is folded in twice');
      assert.equal((await r.delivery.pendingOutbox()).length, 1);
      await r.close();
    },
  );

  it('hostile keys stay inside their folder, round-trip and never collide', async (h) => {
    const hostile = [
      '../../../../etc/passwd',
      'web:../../escape',
      '/absolute/path',
      'web:a\\..\\..\\b',
      'web:\u0000nul',
      '.',
      '..',
      'CON',
      'con',
      'web:ABC',
      'web:abc',
      'web:%2e%2e',
      'web:~x',
      'web:😀 ümlaut',
      `web:${'x'.repeat(5000)}`,
      `web:${'y'.repeat(5000)}`,
    ];
    const s = h.open();
    for (const [i, key] of hostile.entries()) await s.conversations.setMessages(key, [msg('user', `n${i}`)]);
    await s.jobs.put(job('../../jobs'));
    await s.jobs.appendLog(runLog('../../jobs', 1));
    await s.delivery.accept(inbound('../../kv', 'web:x'));
    await s.delivery.putOutbox(reply('../jobs.json', 'web:x', ['x']));
    await s.close();

    const r = h.open();
    for (const [i, key] of hostile.entries())
      assert.deepEqual(texts((await r.conversations.get(key))?.messages), [`n${i}`], key.slice(0, 40));
    assert.deepEqual(await r.conversations.keys(), [...hostile].sort());
    assert.deepEqual((await r.jobs.logs('../../jobs')).length, 1);
    assert.deepEqual(await pendingIds(r), ['../../kv']);
    assert.deepEqual(
      (await r.delivery.pendingOutbox()).map((p) => p.id),
      ['../jobs.json'],
    );
    assert.deepEqual(
      (await r.jobs.list()).map((j) => j.id),
      ['../../jobs'],
    );

    if (files) {
      const paths = await h.listRaw();
      const conv = paths.filter((p) => p.startsWith('conversations/'));
      assert.equal(conv.length, hostile.length);
      for (const p of conv)
        assert.match(p, /^conversations\/[0-9a-f]{2}\/(?:[a-z0-9_-]|%[0-9A-F]{2}|~[0-9a-f]{64})+\.json$/);
      assert.equal(
        new Set(conv.map((p) => p.toLowerCase())).size,
        conv.length,
        'distinct even on a case-insensitive file system',
      );
      for (const p of paths)
        assert.match(
          p,
          /^(conversations\/[0-9a-f]{2}|job-logs)\/[^/]+$|^(kv|jobs)\.json$|^delivery\.log$|^documents\.journal$/,
          p,
        );
    }

    for (const bad of ['', 'web:\uD800']) {
      await assert.rejects(
        r.conversations.setMessages(bad, []),
        (e: unknown) => e instanceof StoreError && e.code === 'bad-key',
      );
      await assert.rejects(
        r.delivery.accept(inbound(bad)),
        (e: unknown) => e instanceof StoreError && e.code === 'bad-key',
      );
    }
    await r.close();
  });

  it('every key a store takes is checked the same way, before anything is written', async (h) => {
    const s = h.open();
    const badKey = (e: unknown) => e instanceof StoreError && e.code === 'bad-key';
    for (const bad of ['', 'web:\uD800']) {
      await assert.rejects(s.delivery.pending(bad), badKey, 'pending of a bad conversation key');
      await assert.rejects(s.delivery.pendingOutbox(bad), badKey, 'pendingOutbox of a bad conversation key');
      await assert.rejects(s.delivery.answered(bad), badKey, 'answered of a bad conversation key');
      await assert.rejects(s.memories.remove({ kind: 'user', userKey: 'web:u1' }, bad), badKey, 'a bad memory id');
      await assert.rejects(s.delivery.fileHandle(bad, 0, 'h'), badKey, 'a bad outbox id');
    }
    // A charge with one bad key charges nobody (not the conversation before the user is refused).
    const charge = {
      conversationKey: 'web:c1',
      userKey: 'web:\uD800',
      model: 'm',
      usage: { inputTokens: 10, outputTokens: 1 },
      costUsd: 0.5,
      at: '2026-01-02T10:00:00Z',
    };
    await assert.rejects(s.usage.add(charge), badKey);
    assert.equal((await s.usage.get({ conversationKey: 'web:c1' }, '2026-01-02')).total.calls, 0);
    await s.close();
  });

  it('dedupe forgets ids beyond the count and the age, and its log stays bounded', async (h) => {
    let now = 1_000_000;
    const opts = { now: () => now, dedupe: { maxCount: 5, maxAgeMs: 60_000 } };
    const s = h.open(opts);
    for (let i = 0; i < 10; i++) assert.equal(await seen(s, `e${i}`), true);
    for (let i = 9; i >= 5; i--) assert.equal(await seen(s, `e${i}`), false, `e${i} is among the newest 5`);
    assert.equal(await seen(s, 'e0'), true, 'e0 fell out of the count window');
    await s.close();

    const r = h.open(opts);
    assert.equal(await seen(r, 'e9'), false, 'retained ids survive a restart');
    now += 30_000;
    assert.equal(await seen(r, 'e9'), false);
    now += 31_000;
    assert.equal(await seen(r, 'e9'), true, 'e9 is older than maxAgeMs');
    for (let i = 0; i < 500; i++) await seen(r, `flood${i}`);
    await r.close();
    if (files) {
      const lines = ((await h.readRaw('delivery.log')) ?? '').split('\n').filter(Boolean).length;
      assert.ok(lines <= 2 * 5 + 64 + 1, `delivery.log holds ${lines} lines`);
    }
    const t = h.open(opts);
    assert.equal(await seen(t, 'flood499'), false);
    assert.equal(await seen(t, 'flood0'), true);
    await t.close();
  });

  it('job logs keep the newest N per job', async (h) => {
    const s = h.open({ jobLogLimit: 3 });
    await s.jobs.put(job('a'));
    for (let n = 1; n <= 7; n++) await s.jobs.appendLog(runLog('a', n));
    await s.jobs.appendLog(runLog('b', 1));
    await s.close();
    const r = h.open({ jobLogLimit: 3 });
    assert.deepEqual(
      (await r.jobs.logs('a')).map((l) => l.delivered),
      ['m5', 'm6', 'm7'],
    );
    assert.deepEqual(
      (await r.jobs.logs('a', 2)).map((l) => l.delivered),
      ['m6', 'm7'],
    );
    assert.deepEqual(
      (await r.jobs.logs('b')).map((l) => l.delivered),
      ['m1'],
    );
    for (const none of [0, -1, Number.NaN]) assert.deepEqual(await r.jobs.logs('a', none), [], `limit ${none}`);
    assert.deepEqual(
      (await r.jobs.logs('a', 1.5)).map((l) => l.delivered),
      ['m7'],
    );
    await r.close();
  });

  it('a closed store refuses calls', async (h) => {
    const s = h.open();
    const pending = s.conversations.setMessages('web:a', [msg('user', 'x')]);
    await s.close();
    assert.equal((await pending).messages.length, 1, 'close waits for writes in flight');
    await assert.rejects(s.kv.set('a', 1), (e: unknown) => e instanceof StoreError && e.code === 'closed');
  });

  itFiles('conversations: a turn saved while /new archives is kept, not cleared with the archived ones', async (h) => {
    let during: (() => Promise<void>) | undefined;
    const s = h.open({
      beforeCommit: async (path) => {
        if (!path.startsWith('archive/') || !during) return;
        const f = during;
        during = undefined;
        await f();
      },
    });
    await s.conversations.setMessages('web:a', [msg('user', 'old'), msg('assistant', 'answer')]);
    // A run of the conversation saves its history while the archive copy is being written.
    during = async () => {
      await s.conversations.setMessages('web:a', [msg('user', 'old'), msg('assistant', 'answer'), msg('user', 'new')]);
    };
    const a = await s.conversations.archive('web:a');
    assert.deepEqual(texts(a?.messages), ['old', 'answer']);
    assert.deepEqual(texts((await s.conversations.get('web:a'))?.messages), ['new']);
    await s.close();
  });

  it('conversations: /new run again with its message id after archiving leaves the fresh session alone', async (h) => {
    const s = h.open();
    await s.conversations.setMessages('web:a', [msg('user', 'one'), msg('assistant', 'two')]);
    const first = await s.conversations.archive('web:a', 'telegram:evt:new');
    // A turn of the fresh session is saved; then the /new is replayed (its reply was never written).
    await s.conversations.setMessages('web:a', [msg('user', 'three')]);
    const again = await s.conversations.archive('web:a', 'telegram:evt:new');
    assert.deepEqual(texts(again?.messages), ['one', 'two'], 'the first archive is answered again');
    assert.equal(again?.id, first?.id);
    assert.deepEqual(texts((await s.conversations.get('web:a'))?.messages), ['three'], 'the fresh session is kept');
    assert.deepEqual(
      (await s.conversations.archived('web:a')).map((x) => texts(x.messages)),
      [['one', 'two']],
    );
    // Another /new archives as usual.
    await s.conversations.archive('web:a', 'telegram:evt:new2');
    assert.deepEqual(
      (await s.conversations.archived('web:a')).map((x) => texts(x.messages)),
      [['one', 'two'], ['three']],
    );
    await s.close();
  });

  itFiles('conversations: a /new whose session changed while it copied leaves the fresh session whole', async (h) => {
    let clock = Date.parse('2026-11-01T00:00:00.000Z');
    let during: (() => Promise<void>) | undefined;
    const s = h.open({
      now: () => (clock += 1000),
      beforeCommit: async (path) => {
        if (!path.startsWith('archive/') || !during) return;
        const run = during;
        during = undefined;
        await run();
      },
    });
    await s.conversations.setMessages('web:a', [msg('user', 'one'), msg('assistant', 'two')]);
    // While the first /new writes its copy, a second /new archives the same session and a turn of
    // the fresh session is saved: the first one's clearing then finds another session.
    during = async () => {
      await s.conversations.archive('web:a', 'telegram:evt:new2');
      await s.conversations.setMessages('web:a', [msg('user', 'three')]);
    };
    await s.conversations.archive('web:a', 'telegram:evt:new1');
    assert.deepEqual(texts((await s.conversations.get('web:a'))?.messages), ['three'], 'the fresh session is kept');
    await s.close();
  });

  itFiles('conversations: /new run again after a crash between its copy and the clearing archives once', async (h) => {
    let crash = false;
    const s = h.open({
      beforeCommit: async (path) => {
        if (crash && path.startsWith('conversations/')) throw new Error('power cut');
      },
    });
    await s.conversations.setMessages('web:a', [msg('user', 'one'), msg('assistant', 'two')]);
    crash = true;
    await assert.rejects(s.conversations.archive('web:a', 'telegram:evt:new'), /power cut/);
    await s.close();
    const r = h.open();
    assert.deepEqual(texts((await r.conversations.get('web:a'))?.messages), ['one', 'two'], 'copied, not cleared');
    const again = await r.conversations.archive('web:a', 'telegram:evt:new');
    assert.deepEqual(texts(again?.messages), ['one', 'two']);
    assert.deepEqual(
      (await r.conversations.archived('web:a')).map((x) => texts(x.messages)),
      [['one', 'two']],
      'one archive',
    );
    assert.deepEqual((await r.conversations.get('web:a'))?.messages, [], 'the clearing is finished');
    await r.close();
  });

  it('conversations: /new archives the session (nothing lost) and the chosen model is kept', async (h) => {
    const s = h.open();
    assert.equal(await s.conversations.archive('web:a'), undefined, 'nothing to archive');
    await s.conversations.setMessages('web:a', [msg('user', 'one'), msg('assistant', 'two')]);
    await s.conversations.setModel('web:a', 'openai/gpt-4o');
    const a = await s.conversations.archive('web:a');
    assert.deepEqual(texts(a?.messages), ['one', 'two']);
    await s.conversations.setMessages('web:a', [msg('user', 'three')]);
    await s.conversations.archive('web:a');
    await s.close();
    const r = h.open();
    const c = await r.conversations.get('web:a');
    assert.deepEqual(c?.messages, []);
    assert.equal(c?.model, 'openai/gpt-4o');
    const archived = await r.conversations.archived('web:a');
    assert.deepEqual(
      archived.map((x) => texts(x.messages)),
      [['one', 'two'], ['three']],
    );
    await r.conversations.setModel('web:a', undefined);
    assert.equal((await r.conversations.get('web:a'))?.model, undefined);
    await r.close();
  });

  it('conversations: archives past the retention are deleted, of every conversation; newer ones stay', async (h) => {
    let clock = Date.parse('2026-01-01T00:00:00.000Z');
    const s = h.open({ now: () => clock });
    for (const [key, text] of [
      ['web:a', 'old a'],
      ['telegram:-100:7', 'old topic'],
    ] as const) {
      await s.conversations.setMessages(key, [msg('user', text)]);
      await s.conversations.archive(key);
    }
    clock += 10 * 24 * 3600_000;
    await s.conversations.setMessages('web:a', [msg('user', 'new a')]);
    await s.conversations.archive('web:a');
    assert.equal(await s.conversations.pruneArchives(clock - 5 * 24 * 3600_000), 2);
    await s.close();
    const r = h.open({ now: () => clock });
    assert.deepEqual(
      (await r.conversations.archived('web:a')).map((x) => texts(x.messages)),
      [['new a']],
    );
    assert.deepEqual(await r.conversations.archived('telegram:-100:7'), []);
    assert.equal(await r.conversations.pruneArchives(clock - 5 * 24 * 3600_000), 0, 'a second sweep finds nothing');
    await r.close();
  });

  it('usage: per conversation and per user, per UTC day and in total, across a restart', async (h) => {
    const s = h.open();
    const u = { inputTokens: 100, outputTokens: 10 };
    await s.usage.add({
      conversationKey: 'web:a',
      userKey: 'web:u1',
      model: 'm',
      usage: u,
      costUsd: 0.5,
      at: '2026-01-01T10:00:00Z',
    });
    await s.usage.add({
      conversationKey: 'web:a',
      userKey: 'web:u1',
      model: 'm',
      usage: u,
      costUsd: 0.25,
      at: '2026-01-02T10:00:00Z',
    });
    await s.usage.add({
      conversationKey: 'web:b',
      userKey: 'web:u1',
      model: 'm',
      usage: u,
      at: '2026-01-02T11:00:00Z',
    });
    await s.close();
    const r = h.open();
    const conv = await r.usage.get({ conversationKey: 'web:a' }, '2026-01-02');
    assert.equal(conv.day.costUsd, 0.25);
    assert.equal(conv.total.costUsd, 0.75);
    assert.equal(conv.total.inputTokens, 200);
    const user = await r.usage.get({ userKey: 'web:u1' }, '2026-01-02');
    assert.equal(user.day.calls, 2);
    assert.equal(user.day.unknownCostCalls, 1, 'an unknown price is counted apart, not as zero');
    assert.equal(user.total.calls, 3);
    assert.equal((await r.usage.get({ conversationKey: 'web:none' }, '2026-01-02')).total.calls, 0);
    await r.close();
  });

  it('usage: a thread’s charge also counts for its space, the threads of its channel together', async (h) => {
    const s = h.open();
    const u = { inputTokens: 10, outputTokens: 1 };
    for (const [thread, costUsd] of [
      ['111.1', 0.5],
      ['222.2', 0.25],
    ] as const)
      await s.usage.add({
        conversationKey: `slack:T1:C1:${thread}`,
        spaceKey: 'slack:T1:C1',
        userKey: 'slack:U1',
        model: 'm',
        usage: u,
        costUsd,
        at: '2026-01-02T10:00:00Z',
      });
    await s.close();
    const r = h.open();
    const space = await r.usage.get({ spaceKey: 'slack:T1:C1' }, '2026-01-02');
    assert.equal(space.day.costUsd, 0.75);
    assert.equal(space.total.calls, 2);
    assert.equal((await r.usage.get({ conversationKey: 'slack:T1:C1:222.2' }, '2026-01-02')).day.costUsd, 0.25);
    // A space's figure is its own subject: the channel's own conversation is not charged by its threads.
    assert.equal((await r.usage.get({ conversationKey: 'slack:T1:C1' }, '2026-01-02')).total.calls, 0);
    await r.close();
  });

  it('usage: per day by conversation, by user and by model, across a restart', async (h) => {
    const s = h.open();
    const charge = (over: Partial<UsageCharge>) =>
      s.usage.add({
        conversationKey: 'web:a',
        userKey: 'web:u1',
        model: 'anthropic/claude',
        usage: { inputTokens: 100, outputTokens: 10 },
        costUsd: 0.5,
        at: '2026-01-02T10:00:00Z',
        ...over,
      });
    await charge({ at: '2025-12-31T23:59:59Z' }); // before the span asked for
    await charge({});
    await charge({ model: 'openai/gpt', costUsd: 0.25 });
    await charge({
      conversationKey: 'slack:T1:C1:111.1',
      spaceKey: 'slack:T1:C1',
      userKey: 'slack:T1:U1',
      usage: { inputTokens: 7, outputTokens: 3 },
      costUsd: 0.125,
    });
    // A job's run: nobody asked, so no user; its price unknown.
    await charge({ conversationKey: 'telegram:-100', userKey: undefined, model: 'openai/gpt', costUsd: undefined });
    await charge({ at: '2026-01-03T08:00:00Z', userKey: 'web:u2', costUsd: 1 });
    await s.close();
    const r = h.open();
    const { days, truncated } = await r.usage.daily('2026-01-01', '2026-01-03');
    assert.equal(truncated, false);
    assert.deepEqual(
      days.map((d) => d.day),
      ['2026-01-01', '2026-01-02', '2026-01-03'],
    );
    assert.deepEqual(days[0], { day: '2026-01-01', conversations: {}, users: {}, models: {} }, 'a day without calls');
    const [, jan2, jan3] = days;
    const cost = (t: Record<string, UsageTotals>) =>
      Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v.costUsd]));
    const calls = (t: Record<string, UsageTotals>) =>
      Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v.calls]));
    assert.deepEqual(cost(jan2!.conversations), { 'slack:T1:C1:111.1': 0.125, 'telegram:-100': 0, 'web:a': 0.75 });
    assert.deepEqual(cost(jan2!.users), { 'slack:T1:U1': 0.125, 'web:u1': 0.75 }, 'the job’s call has no user');
    assert.deepEqual(cost(jan2!.models), { 'anthropic/claude': 0.625, 'openai/gpt': 0.25 });
    assert.deepEqual(calls(jan2!.models), { 'anthropic/claude': 2, 'openai/gpt': 2 });
    assert.equal(jan2!.models['openai/gpt']!.unknownCostCalls, 1, 'an unknown price is counted apart');
    assert.equal(jan2!.models['anthropic/claude']!.inputTokens, 107);
    assert.equal(jan2!.models['anthropic/claude']!.outputTokens, 13);
    assert.deepEqual(cost(jan3!.users), { 'web:u2': 1 });
    assert.deepEqual(cost(jan3!.models), { 'anthropic/claude': 1 });
    // The per-day figures are the ones budgets read.
    assert.equal((await r.usage.get({ conversationKey: 'web:a' }, '2026-01-02')).day.costUsd, 0.75);
    await r.close();
  });

  it('usage: a conversation’s day is split by at most 20 models; calls of further ones count together', async (h) => {
    const s = h.open();
    for (let i = 0; i < 22; i++)
      await s.usage.add({
        conversationKey: 'web:a',
        model: `p/m${i}`,
        usage: { inputTokens: 1, outputTokens: 1 },
        costUsd: 1,
        at: '2026-01-02T10:00:00Z',
      });
    const [day] = (await s.usage.daily('2026-01-02', '2026-01-02')).days;
    assert.equal(Object.keys(day!.models).length, 21);
    assert.equal(day!.models[OTHER_MODELS]?.calls, 2);
    assert.equal(day!.models['p/m19']?.calls, 1);
    await s.close();
  });

  it('usage: a span that is not days, runs backwards or is longer than the days kept is refused', async (h) => {
    const s = h.open();
    const invalid = (e: unknown) => e instanceof StoreError && e.code === 'invalid';
    await assert.rejects(s.usage.daily('2026-1-2', '2026-01-03'), invalid);
    await assert.rejects(s.usage.daily('2026-02-30', '2026-03-01'), invalid);
    await assert.rejects(s.usage.daily('2026-01-03', '2026-01-02'), invalid);
    await assert.rejects(s.usage.daily('2026-01-01', '2026-03-31'), invalid);
    assert.equal((await s.usage.daily('2026-01-01', '2026-03-03')).days.length, 62);
    await s.close();
  });

  itFiles('usage: a day recorded before models were split counts under “model not recorded”', async (h) => {
    const s = h.open();
    await s.usage.add({
      conversationKey: 'web:a',
      model: 'p/m',
      usage: { inputTokens: 1, outputTokens: 1 },
      costUsd: 0.5,
      at: '2026-01-02T10:00:00Z',
    });
    await s.close();
    const path = (await h.listRaw()).find((p) => p.startsWith('usage/conversations/'))!;
    const doc = JSON.parse((await h.readRaw(path))!);
    delete doc.models; // as an older boxbot wrote it
    await h.writeRaw(path, JSON.stringify(doc));
    const r = h.open();
    const [day] = (await r.usage.daily('2026-01-02', '2026-01-02')).days;
    assert.deepEqual(Object.keys(day!.models), [UNRECORDED_MODEL]);
    assert.equal(day!.models[UNRECORDED_MODEL]!.costUsd, 0.5);
    // A call charged since is split by its model, and the split still adds up to the day.
    await r.usage.add({
      conversationKey: 'web:a',
      model: 'p/m',
      usage: { inputTokens: 1, outputTokens: 1 },
      costUsd: 0.25,
      at: '2026-01-02T11:00:00Z',
    });
    const [later] = (await r.usage.daily('2026-01-02', '2026-01-02')).days;
    assert.deepEqual(Object.fromEntries(Object.entries(later!.models).map(([k, v]) => [k, v.costUsd])), {
      [UNRECORDED_MODEL]: 0.5,
      'p/m': 0.25,
    });
    await r.close();
  });

  itFiles('usage: a corrupt usage document leaves the per-day answer to the others; a charge reports it', async (h) => {
    const charge = (st: Store, conversationKey: string) =>
      st.usage.add({
        conversationKey,
        model: 'p/m',
        usage: { inputTokens: 1, outputTokens: 1 },
        costUsd: 0.5,
        at: '2026-01-02T10:00:00Z',
      });
    const s = h.open();
    await charge(s, 'web:a');
    await charge(s, 'web:b');
    await s.close();
    const name = `/${encodeName('web:a')}.json`;
    const path = (await h.listRaw()).find((p) => p.startsWith('usage/conversations/') && p.endsWith(name))!;
    await h.writeRaw(path, '{"subject": ');
    const reports: CorruptReport[] = [];
    const r = h.open({ onCorrupt: (c) => reports.push(c) });
    const [day] = (await r.usage.daily('2026-01-02', '2026-01-02')).days;
    assert.deepEqual(Object.keys(day!.conversations), ['web:b']);
    assert.equal(reports.length, 0);
    await charge(r, 'web:a');
    assert.equal(reports.length, 1, 'the next charge moves it aside and reports it');
    const [after] = (await r.usage.daily('2026-01-02', '2026-01-02')).days;
    assert.deepEqual(Object.keys(after!.conversations), ['web:a', 'web:b']);
    await r.close();
  });

  itFiles(
    'usage: a charge writes only its conversation’s and its user’s documents (no per-day document)',
    async (h) => {
      const written: string[] = [];
      const s = h.open({
        beforeCommit: async (path) => {
          if (path.startsWith('usage/')) written.push(path.split('/')[1]!);
        },
      });
      await s.usage.add({
        conversationKey: 'web:a',
        userKey: 'web:u1',
        model: 'p/m',
        usage: { inputTokens: 1, outputTokens: 1 },
        costUsd: 0.5,
        at: '2026-01-02T10:00:00Z',
      });
      assert.deepEqual(written.sort(), ['conversations', 'users']);
      assert.equal((await s.usage.daily('2026-01-02', '2026-01-02')).days[0]!.models['p/m']?.costUsd, 0.5);
      await s.close();
    },
  );

  itFiles('usage: a charge writes its conversation’s and its user’s documents side by side', async (h) => {
    // One write's wait for the disk, not two in a row: each write is held before its commit
    // until the other subject's write is under way too.
    const held: string[] = [];
    const sawBoth: boolean[] = [];
    const s = h.open({
      beforeCommit: async (path) => {
        if (!path.startsWith('usage/')) return;
        held.push(path);
        sawBoth.push(
          await waitUntil(() => held.length === 2, 'both usage documents being written', 2000).then(
            () => true,
            () => false,
          ),
        );
      },
    });
    await s.usage.add({
      conversationKey: 'web:a',
      userKey: 'web:u1',
      model: 'm',
      usage: { inputTokens: 1, outputTokens: 1 },
      costUsd: 0.5,
      at: '2026-01-01T10:00:00Z',
    });
    assert.deepEqual(sawBoth, [true, true]);
    assert.equal((await s.usage.get({ conversationKey: 'web:a' }, '2026-01-01')).day.costUsd, 0.5);
    assert.equal((await s.usage.get({ userKey: 'web:u1' }, '2026-01-01')).day.costUsd, 0.5);
    await s.close();
  });

  itFiles('usage: a charge retried after one of its documents failed counts once in each', async (h) => {
    let fail = true;
    const s = h.open({
      beforeCommit: (path) => {
        if (fail && path.startsWith('usage/conversations/'))
          throw Object.assign(new Error('disk full'), { code: 'EIO' });
      },
    });
    const c = {
      conversationKey: 'web:a',
      userKey: 'web:u1',
      model: 'm',
      usage: { inputTokens: 1, outputTokens: 1 },
      costUsd: 0.5,
      at: '2026-01-01T10:00:00Z',
    };
    await assert.rejects(s.usage.add(c), /disk full/);
    fail = false;
    await s.usage.add(c); // as the gateway retries a failed store write: the same charge again
    assert.equal((await s.usage.get({ conversationKey: 'web:a' }, '2026-01-01')).total.calls, 1);
    assert.equal((await s.usage.get({ userKey: 'web:u1' }, '2026-01-01')).total.calls, 1);
    await s.close();
  });

  itFiles('usage: a failed charge is reported only once its other document is written', async (h) => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let userWriting = false;
    const s = h.open({
      beforeCommit: async (path) => {
        if (path.startsWith('usage/conversations/')) throw Object.assign(new Error('disk full'), { code: 'EIO' });
        if (path.startsWith('usage/users/')) {
          userWriting = true;
          await held;
        }
      },
    });
    let settled = false;
    const adding = s.usage.add({
      conversationKey: 'web:a',
      userKey: 'web:u1',
      model: 'm',
      usage: { inputTokens: 1, outputTokens: 1 },
      costUsd: 0.5,
      at: '2026-01-01T10:00:00Z',
    });
    adding.then(
      () => undefined,
      () => {
        settled = true;
      },
    );
    await waitUntil(() => userWriting, 'the user document being written', 2000);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    // A retry now would race the user's write still in flight (and count it twice).
    assert.equal(settled, false, 'the failure waits for the other write');
    release();
    await assert.rejects(adding, /disk full/);
    await s.close();
  });

  it('approvals: the first decision wins, and the journal survives a restart', async (h) => {
    const s = h.open();
    const base = {
      conversationKey: 'web:a',
      inboundId: 'web:m1',
      requesterId: 'u1',
      approvers: ['u1'],
      tool: 'write',
      input: { file_path: 'a.txt' },
      question: 'May I?',
      target: { conversationKey: 'web:a', chatId: 'a' },
      state: 'pending' as const,
      createdAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    };
    await s.approvals.put({ ...base, id: 'ab12' });
    await s.approvals.put({ ...base, id: 'cd34', inboundId: 'web:m2' });
    assert.equal((await s.approvals.decide('ab12', 'approved', new Date().toISOString(), 'u1'))?.state, 'approved');
    const again = await s.approvals.decide('ab12', 'denied', new Date().toISOString(), 'u2');
    assert.equal(again?.state, 'approved', 'a later decision changes nothing');
    assert.equal(again?.decidedBy, 'u1');
    await s.approvals.update('ab12', {
      ran: { at: new Date().toISOString(), result: { content: 'ok', isError: false } },
    });
    await s.close();
    const r = h.open();
    assert.deepEqual(
      (await r.approvals.pending()).map((a) => a.id),
      ['cd34'],
    );
    assert.equal((await r.approvals.forMessage('web:m1'))[0]?.ran?.result?.content, 'ok');
    assert.equal(await r.approvals.decide('nope', 'denied', new Date().toISOString()), undefined);
    await r.close();
  });

  it('approvals: the history: decided and expired, newest first, never the pending, at most limit', async (h) => {
    const s = h.open();
    const at = (min: number) => new Date(Date.now() - 60_000 * (10 - min)).toISOString();
    const one = (id: string, min: number) => ({
      ...approval(id, { conversationKey: 'web:a', chatId: 'a' }),
      conversationKey: 'web:a',
      createdAt: at(min),
    });
    await s.approvals.put(one('old1', 1));
    await s.approvals.put(one('mid2', 2));
    await s.approvals.put(one('new3', 3));
    await s.approvals.put(one('pend', 4));
    await s.approvals.decide('old1', 'denied', at(5), '42');
    await s.approvals.decide('mid2', 'expired', at(5));
    await s.approvals.decide('new3', 'approved', at(5), '42');
    assert.deepEqual(
      (await s.approvals.recent(10)).map((a) => [a.id, a.state]),
      [
        ['new3', 'approved'],
        ['mid2', 'expired'],
        ['old1', 'denied'],
      ],
    );
    assert.deepEqual(
      (await s.approvals.recent(1)).map((a) => a.id),
      ['new3'],
    );
    await assert.rejects(s.approvals.recent(0), /limit must be a whole number/);
    await s.close();
  });

  /** An approval as the desk writes it, its target where the question was posted. */
  const approval = (id: string, target: unknown): ApprovalRecord => ({
    id,
    conversationKey: 'telegram:-100123:45',
    inboundId: `telegram:1:${id}`,
    requesterId: '42',
    approvers: ['42'],
    tool: 'write',
    input: null,
    question: 'May I?',
    target: target as ApprovalRecord['target'],
    state: 'pending',
    createdAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
  });

  const typedTitle =
    'approvals: the target reads back typed, and one that is no reply target is refused, naming the field';
  it(typedTitle, async (h) => {
    const s = h.open();
    const target = { conversationKey: 'telegram:-100123:45', chatId: '-100123', threadId: '45', replyToMessageId: '9' };
    await s.approvals.put(approval('ok12', target));
    assert.deepEqual((await s.approvals.get('ok12'))?.target, target);
    await assert.rejects(
      s.approvals.put(approval('bad1', { conversationKey: 'telegram:-100123:45' })),
      (e: unknown) =>
        e instanceof StoreError && e.code === 'invalid' && /target.*chatId must be a non-empty/.test(e.message),
    );
    assert.equal(await s.approvals.get('bad1'), undefined);
    await s.close();
  });

  itFiles(
    'approvals: a stored approval whose target is not one is a corrupt file named as such, not a crash',
    async (h) => {
      const s = h.open();
      await s.approvals.put(approval('ok12', { conversationKey: 'web:a', chatId: 'a' }));
      const doc = JSON.parse((await h.readRaw('approvals.json')) as string) as { approvals: Record<string, JsonValue> };
      doc.approvals.ok12 = { ...(doc.approvals.ok12 as Record<string, JsonValue>), target: { chatId: 7 } };
      await h.writeRaw('approvals.json', JSON.stringify(doc));
      await assert.rejects(
        s.approvals.pending(),
        (e: unknown) =>
          e instanceof StoreCorruptError &&
          /approvals\.json/.test(e.message) &&
          /target: bad reply target: conversationKey must be a non-empty string/.test(e.message),
      );
      await s.close();
    },
  );
}
