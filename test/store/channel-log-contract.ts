// The channel log part of the store contract: every backend runs it (memory-store.test.ts,
// postgres-store.test.ts). One entry per message id, edits and deletions applied, periods listed
// oldest first, and retention deletes what is older than the cutoff, in that channel only.
import assert from 'node:assert/strict';
import { type ChannelLogEntry, sweepChannelLog } from '../../src/store/index.ts';
import type { StoreHarness } from './contract.ts';
import { harnessCases } from './harness-test.ts';

const C = 'slack:T1:C1';
const at = (h: number, m = 0): string => new Date(Date.UTC(2026, 10, 20, h, m)).toISOString();
const msg = (id: string, h: number, m = 0, extra: Partial<ChannelLogEntry> = {}): ChannelLogEntry => ({
  channel: C,
  messageId: id,
  at: at(h, m),
  userId: 'U1',
  userName: 'ada',
  text: `text ${id}`,
  ...extra,
});

/** Runs the channel log contract against `makeHarness`'s backend. */
export function channelLogContract(backend: string, makeHarness: () => Promise<StoreHarness>): void {
  const it = harnessCases(backend, 'channel log', makeHarness);

  it('keeps one entry per message id, oldest first, within the period asked', async (h) => {
    const s = await h.open();
    await s.channelLog.put([msg('3', 12, 30), msg('1', 10), msg('2', 11, 59, { threadId: '1', files: ['a.pdf'] })]);
    await s.channelLog.put([msg('1', 10, 0, { text: 'again' })]); // a redelivery replaces
    await s.channelLog.put([{ ...msg('9', 11), channel: 'slack:T1:C2' }]);
    const all = await s.channelLog.list(C, { from: at(0), to: at(23) });
    assert.deepEqual(
      all.map((e) => [e.messageId, e.text]),
      [
        ['1', 'again'],
        ['2', 'text 2'],
        ['3', 'text 3'],
      ],
    );
    assert.deepEqual(all[1], msg('2', 11, 59, { threadId: '1', files: ['a.pdf'] }));
    const part = await s.channelLog.list(C, { from: at(11), to: at(12, 30) });
    assert.deepEqual(
      part.map((e) => e.messageId),
      ['2'],
    );
    assert.equal(await s.channelLog.oldest(C), at(10));
    assert.deepEqual(await s.channelLog.channels(), ['slack:T1:C1', 'slack:T1:C2']);
    await s.close();
    const again = await h.open();
    assert.equal((await again.channelLog.list(C, { from: at(0), to: at(23) })).length, 3, 'kept across a restart');
    await again.close();
  });

  it('one put of a backfill’s 1,200 messages keeps each; the same id twice in it keeps the last', async (h) => {
    const s = await h.open();
    const many = Array.from({ length: 1200 }, (_, i) => msg(String(1000 + i), 1 + Math.floor(i / 60), i % 60));
    await s.channelLog.put([...many, msg('1000', 1, 0, { text: 'edited later in the same read' })]);
    const all = await s.channelLog.list(C, { from: at(0), to: at(23) });
    assert.equal(all.length, 1200);
    assert.equal(all[0]!.text, 'edited later in the same read');
    assert.equal(all.at(-1)!.messageId, '2199');
    await s.close();
  });

  it('applies edits and deletions, and says when the message is unknown', async (h) => {
    const s = await h.open();
    await s.channelLog.put([msg('1', 10), msg('2', 10, 5, { files: ['x.png'] })]);
    assert.equal(await s.channelLog.edit(C, { messageId: '1', at: at(10), text: 'fixed', editedAt: at(11) }), true);
    assert.equal(await s.channelLog.edit(C, { messageId: '7', at: at(10), text: 'x', editedAt: at(11) }), false);
    assert.equal(await s.channelLog.remove(C, '2', at(10, 5)), true);
    assert.equal(await s.channelLog.remove(C, '2', at(10, 5)), false);
    const all = await s.channelLog.list(C, { from: at(0), to: at(23) });
    assert.deepEqual(all, [{ ...msg('1', 10), text: 'fixed', editedAt: at(11) }]);
    await s.close();
  });

  it('retention deletes the entries posted before the cutoff, in that channel only', async (h) => {
    const s = await h.open();
    await s.channelLog.put([msg('1', 1), msg('2', 5, 10), msg('3', 5, 40), msg('4', 9)]);
    await s.channelLog.put([{ ...msg('5', 1), channel: 'slack:T1:C2' }]);
    assert.equal(await s.channelLog.prune(C, at(5, 30)), 2);
    assert.deepEqual(
      (await s.channelLog.list(C, { from: at(0), to: at(23) })).map((e) => e.messageId),
      ['3', '4'],
    );
    assert.equal((await s.channelLog.list('slack:T1:C2', { from: at(0), to: at(23) })).length, 1);
    assert.equal(await s.channelLog.oldest(C), at(5, 40));
    await s.close();
  });

  it('the sweep keeps each channel its own days', async (h) => {
    const s = await h.open();
    const day = 24 * 3600_000;
    const now = Date.UTC(2026, 10, 27, 12);
    const old = (channel: string, id: string, days: number): ChannelLogEntry => ({
      ...msg(id, 0),
      channel,
      at: new Date(now - days * day).toISOString(),
    });
    await s.channelLog.put([old(C, '1', 10), old(C, '2', 3), old('slack:T1:C2', '3', 10), old('slack:T1:C2', '4', 40)]);
    const removed = await sweepChannelLog(s.channelLog, (ch) => (ch === C ? 7 : 30), now);
    assert.equal(removed, 2);
    const range = { from: new Date(now - 100 * day).toISOString(), to: new Date(now).toISOString() };
    assert.deepEqual(
      (await s.channelLog.list(C, range)).map((e) => e.messageId),
      ['2'],
    );
    assert.deepEqual(
      (await s.channelLog.list('slack:T1:C2', range)).map((e) => e.messageId),
      ['3'],
    );
    await s.close();
  });

  it('refuses an empty channel or message id before it reaches the backend, and writes nothing', async (h) => {
    const s = await h.open();
    const badKey = { name: 'StoreError', code: 'bad-key' };
    await assert.rejects(s.channelLog.put([msg('1', 10), { ...msg('2', 10), messageId: '' }]), badKey);
    await assert.rejects(s.channelLog.list('', { from: at(0), to: at(23) }), badKey);
    await assert.rejects(s.channelLog.remove(C, ''), badKey);
    await assert.rejects(s.channelLog.prune('', at(23)), badKey);
    assert.deepEqual(await s.channelLog.list(C, { from: at(0), to: at(23) }), []);
    await s.close();
  });
}
