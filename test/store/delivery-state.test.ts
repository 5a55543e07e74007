// What each line of the delivery log means, without a file: the state a record leads to, the
// retention rules, and that a snapshot replays into the state it was taken from.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  applyDeliveryRecord,
  type DeliveryState,
  deliverySnapshot,
  emptyDeliveryState,
  failedView,
  outboxView,
  pruneFailed,
  pruneSeen,
} from '../../src/store/delivery-state.ts';
import type { DeliveryRecord, StoredInbound, StoredOutbox } from '../../src/store/schemas.ts';

const AT = '2026-11-01T00:00:00.000Z';

function accepted(id: string, seq: number): StoredInbound {
  return { id, conversationKey: 'web:a', acceptedAt: AT, seq, message: { id, text: 'hi' } };
}

function entry(id: string, seq: number, over: Partial<StoredOutbox> = {}): StoredOutbox {
  return {
    id,
    conversationKey: 'web:a',
    target: { conversationKey: 'web:a', chatId: 'a' },
    chunks: [{ text: 'one' }, { text: 'two' }],
    state: 'pending',
    createdAt: AT,
    updatedAt: AT,
    seq,
    ...over,
  };
}

/** The state after `records`, from empty. */
function replay(records: DeliveryRecord[]): DeliveryState {
  return records.reduce(applyDeliveryRecord, emptyDeliveryState());
}

test('accept marks the id seen and journals the message; done answers it and the id stays seen', () => {
  const s = replay([{ op: 'accept', at: 5, record: accepted('m1', 1) }]);
  assert.deepEqual([...s.seen], [['m1', 5]]);
  assert.deepEqual([...s.inbound.keys()], ['m1']);
  applyDeliveryRecord(s, { op: 'done', id: 'm1' });
  assert.deepEqual([...s.inbound.keys()], []);
  assert.deepEqual([...s.seen], [['m1', 5]]);
});

test('a seen id seen again moves to the newest place (the order is the age order)', () => {
  const s = replay([
    { op: 'seen', id: 'a', at: 1 },
    { op: 'seen', id: 'b', at: 2 },
    { op: 'seen', id: 'a', at: 3 },
  ]);
  assert.deepEqual(
    [...s.seen],
    [
      ['b', 2],
      ['a', 3],
    ],
  );
});

test('receipts, file receipts and upload handles replace the entry; an unknown index or entry changes nothing', () => {
  const files = [{ name: 'a.png', mimeType: 'image/png', size: 3, blob: 'outbox-files/r.0' }];
  const s = replay([{ op: 'put', entry: entry('r', 1, { files }) }]);
  const before = s.outbox.get('r')!;
  applyDeliveryRecord(s, { op: 'receipt', id: 'r', index: 1, messageId: 'p2', at: '2026-11-01T00:00:01.000Z' });
  const after = s.outbox.get('r')!;
  assert.notEqual(after, before, 'replaced, so a holder of the old entry can restore it');
  assert.equal(before.chunks[1]?.receipt, undefined);
  assert.deepEqual(after.chunks[1]?.receipt, { messageId: 'p2', sentAt: '2026-11-01T00:00:01.000Z' });
  assert.equal(after.updatedAt, '2026-11-01T00:00:01.000Z');

  applyDeliveryRecord(s, { op: 'handle', id: 'r', index: 0, handle: 'F1', at: AT });
  applyDeliveryRecord(s, { op: 'file', id: 'r', index: 0, messageId: 'p3', at: AT });
  assert.deepEqual(s.outbox.get('r')!.files?.[0], {
    ...files[0],
    handle: 'F1',
    receipt: { messageId: 'p3', sentAt: AT },
  });

  const kept = s.outbox.get('r');
  applyDeliveryRecord(s, { op: 'receipt', id: 'r', index: 7, messageId: 'x', at: AT });
  applyDeliveryRecord(s, { op: 'file', id: 'r', index: 1, messageId: 'x', at: AT });
  applyDeliveryRecord(s, { op: 'receipt', id: 'nope', index: 0, messageId: 'x', at: AT });
  assert.equal(s.outbox.get('r'), kept);
  assert.equal(s.outbox.has('nope'), false);
});

test('sent and failed end an entry and answer its message in one record', () => {
  const s = replay([
    { op: 'accept', at: 1, record: accepted('m1', 1) },
    { op: 'accept', at: 2, record: accepted('m2', 2) },
    { op: 'put', entry: entry('r1', 3) },
    { op: 'put', entry: entry('r2', 4) },
    { op: 'sent', id: 'r1', answered: 'm1' },
    { op: 'failed', id: 'r2', error: 'chat not found', at: '2026-11-02T00:00:00.000Z', answered: 'm2' },
  ]);
  assert.deepEqual([...s.inbound.keys()], []);
  assert.deepEqual([...s.outbox.keys()], ['r2']);
  const failed = s.outbox.get('r2')!;
  assert.equal(failed.state, 'failed');
  assert.equal(failed.error, 'chat not found');
  assert.equal(failed.updatedAt, '2026-11-02T00:00:00.000Z');
});

test('a preview id replaces "being sent"; "being sent" never replaces a known preview', () => {
  const s = replay([
    { op: 'accept', at: 1, record: accepted('m1', 1) },
    { op: 'previewing', id: 'm1' },
  ]);
  assert.equal(s.inbound.get('m1')!.previewSending, true);
  applyDeliveryRecord(s, { op: 'preview', id: 'm1', messageId: 'p1' });
  assert.equal(s.inbound.get('m1')!.previewSending, undefined);
  assert.equal(s.inbound.get('m1')!.previewMessageId, 'p1');
  applyDeliveryRecord(s, { op: 'previewing', id: 'm1' });
  assert.equal(s.inbound.get('m1')!.previewSending, undefined);
  applyDeliveryRecord(s, { op: 'preview', id: 'answered', messageId: 'p9' });
  assert.equal(s.inbound.has('answered'), false);
});

test('media work counts the starts that never ended, per attachment', () => {
  const s = replay([
    { op: 'accept', at: 1, record: accepted('m1', 1) },
    { op: 'media-work', id: 'm1', index: 0, started: true },
    { op: 'media-work', id: 'm1', index: 0, started: true },
    { op: 'media-work', id: 'm1', index: 1, started: true },
  ]);
  assert.deepEqual(s.inbound.get('m1')!.mediaWork, { 0: 2, 1: 1 });
  applyDeliveryRecord(s, { op: 'media-work', id: 'm1', index: 0, started: false });
  assert.deepEqual(s.inbound.get('m1')!.mediaWork, { 1: 1 });
});

test('seen ids are forgotten beyond the count and the age, oldest first, but an unanswered one stays', () => {
  const s = replay([
    { op: 'seen', id: 'old', at: 0 },
    { op: 'accept', at: 10, record: accepted('waiting', 1) },
    { op: 'seen', id: 'a', at: 20 },
    { op: 'seen', id: 'b', at: 30 },
    { op: 'seen', id: 'c', at: 40 },
  ]);
  pruneSeen(s, 50, { maxAgeMs: 45, maxCount: 10 });
  assert.deepEqual([...s.seen.keys()], ['waiting', 'a', 'b', 'c'], 'too old');
  pruneSeen(s, 50, { maxAgeMs: 1000, maxCount: 2 });
  assert.deepEqual(
    [...s.seen.keys()],
    ['waiting', 'a', 'b', 'c'],
    'the unanswered message at the front holds the ones behind it',
  );
  applyDeliveryRecord(s, { op: 'done', id: 'waiting' });
  pruneSeen(s, 50, { maxAgeMs: 1000, maxCount: 2 });
  assert.deepEqual([...s.seen.keys()], ['b', 'c']);
});

test('failed entries are dropped beyond their count and age, newest failure kept first; pending ones never', () => {
  const failedAt = (d: number) => `2026-11-0${d}T00:00:00.000Z`;
  const s = replay([
    { op: 'put', entry: entry('pending', 1, { updatedAt: failedAt(1) }) },
    { op: 'put', entry: entry('f1', 2, { state: 'failed', updatedAt: failedAt(2) }) },
    { op: 'put', entry: entry('f2', 3, { state: 'failed', updatedAt: failedAt(4) }) },
    { op: 'put', entry: entry('f3', 4, { state: 'failed', updatedAt: failedAt(3) }) },
  ]);
  const now = Date.parse(failedAt(5));
  assert.equal(pruneFailed(s, now, { maxAgeMs: 10 * 86_400_000, maxCount: 2 }), true);
  assert.deepEqual([...s.outbox.keys()].sort(), ['f2', 'f3', 'pending']);
  assert.equal(pruneFailed(s, now, { maxAgeMs: 1.5 * 86_400_000, maxCount: 10 }), true);
  assert.deepEqual([...s.outbox.keys()].sort(), ['f2', 'pending']);
  assert.equal(pruneFailed(s, now, { maxAgeMs: 1.5 * 86_400_000, maxCount: 10 }), false);
});

test('a snapshot replays into the live state it was taken from, answered ids as seen ids', () => {
  const s = replay([
    { op: 'accept', at: 1, record: accepted('m1', 1) },
    { op: 'accept', at: 2, record: accepted('m2', 2) },
    { op: 'done', id: 'm1' },
    { op: 'previewing', id: 'm2' },
    { op: 'put', entry: entry('r', 3) },
    { op: 'receipt', id: 'r', index: 0, messageId: 'p1', at: AT },
  ]);
  const lines = deliverySnapshot(s)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as DeliveryRecord);
  assert.deepEqual(
    lines.map((r) => r.op),
    ['seen', 'accept', 'put'],
  );
  const again = replay(lines);
  assert.deepEqual([...again.seen], [...s.seen]);
  assert.deepEqual(again.inbound, s.inbound);
  assert.deepEqual(again.outbox, s.outbox);
  assert.equal(deliverySnapshot(emptyDeliveryState()), '');
});

test('views: a pending entry as the gateway resumes it, a failed one as an operator reads it', () => {
  const e = entry('r', 1, {
    target: { conversationKey: 'web:a', chatId: 'a', streamMessageId: 's1' },
    chunks: [{ text: 'one', receipt: { messageId: 'p1', sentAt: AT } }, { text: 'two' }],
    files: [
      { name: 'a.png', mimeType: 'image/png', size: 3, blob: 'b0', caption: 'chart', handle: 'F1' },
      { name: 'b.txt', mimeType: 'text/plain', size: 1, blob: 'b1' },
    ],
  });
  assert.deepEqual(outboxView(e), {
    id: 'r',
    conversationKey: 'web:a',
    target: { conversationKey: 'web:a', chatId: 'a' },
    streamMessageId: 's1',
    chunks: ['one', 'two'],
    receipts: ['p1', null],
    files: [
      { name: 'a.png', mimeType: 'image/png', caption: 'chart' },
      { name: 'b.txt', mimeType: 'text/plain' },
    ],
    fileReceipts: [null, null],
    fileHandles: ['F1', null],
    createdAt: AT,
  });
  assert.deepEqual(failedView({ ...e, state: 'failed', error: 'no', updatedAt: '2026-11-02T00:00:00.000Z' }), {
    id: 'r',
    conversationKey: 'web:a',
    text: 'onetwo',
    files: ['a.png', 'b.txt'],
    error: 'no',
    createdAt: AT,
    failedAt: '2026-11-02T00:00:00.000Z',
  });
});
