// Discord's nonce with enforce_nonce on every message and upload: a send repeated with the same
// idempotency key (a restart after the send, before its receipt was written) returns the message
// the first made instead of posting it twice; through the gateway's outbox delivery too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/core/log.ts';
import { OutboundQueue } from '../../src/gateway/outbound-queue.ts';
import { deliverEntry, ReplyStream } from '../../src/gateway/reply.ts';
import type { OutboxEntry } from '../../src/runner/ports.ts';
import { MemoryGatewayStore } from '../gateway/fakes.ts';
import { until } from './contract.ts';
import { discordHarness } from './discord-harness.ts';

const file = (name: string) => ({ name, mimeType: 'text/plain', bytes: new TextEncoder().encode(`bytes of ${name}`) });

test('a send or upload repeated with the same idempotency key posts one message', async () => {
  const h = await discordHarness();
  try {
    const target = h.directTarget();
    const a = await h.adapter.send(target, 'once', { format: 'plain', idempotencyKey: 'entry-1:0' });
    const b = await h.adapter.send(target, 'once', { format: 'plain', idempotencyKey: 'entry-1:0' });
    assert.equal(b.messageId, a.messageId);
    const c = await h.adapter.send(target, 'once', { format: 'plain', idempotencyKey: 'entry-2:0' });
    assert.notEqual(c.messageId, a.messageId, 'another key is another message');
    const f1 = await h.adapter.sendFile!(target, file('a.txt'), { idempotencyKey: 'entry-1:f0' });
    const f2 = await h.adapter.sendFile!(target, file('a.txt'), { idempotencyKey: 'entry-1:f0' });
    assert.equal(f2.messageId, f1.messageId);
    assert.equal(h.emu.botMessages().length, 3);
    assert.equal(h.emu.world.nonceRepeats, 2);
    const creates = h.emu.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith(`/channels/${h.dm.id}/messages`),
    );
    for (const r of creates) {
      const body = r.body as { nonce?: unknown; enforce_nonce?: unknown };
      assert.equal(typeof body.nonce, 'string');
      assert.ok((body.nonce as string).length <= 25, 'Discord takes at most 25 characters');
      assert.equal(body.enforce_nonce, true);
    }
    // Without a key nothing is enforced: two sends are two messages.
    await h.adapter.send(target, 'twice', { format: 'plain' });
    await h.adapter.send(target, 'twice', { format: 'plain' });
    assert.equal(h.emu.botMessages().filter((m) => m.content === 'twice').length, 2);
  } finally {
    await h.close();
  }
});

test('an outbox entry delivered again after dying between a send and its receipt posts each part once', async () => {
  const h = await discordHarness();
  await h.adapter.start(async () => undefined);
  try {
    const store = new MemoryGatewayStore();
    const queue = new OutboundQueue(h.adapter, { backoffMs: 5 });
    const entry: OutboxEntry = {
      id: 'out-1',
      conversationKey: h.directTarget().conversationKey,
      target: h.directTarget(),
      chunks: ['first part', 'second part'],
      receipts: [null, null],
      files: [file('report.txt')],
      fileReceipts: [null],
      createdAt: new Date().toISOString(),
    };
    await store.putOutbox(entry);
    // Each journal write dies the first time it is reached (the process killed after the send
    // it records); the next attempt starts from what the store holds.
    let written = 0;
    const diedAt = new Set<number>();
    const d = {
      queue,
      store,
      log: silentLogger,
      persist: async <T>(_what: string, write: () => Promise<T>): Promise<T> => {
        if (!diedAt.has(written)) {
          diedAt.add(written);
          throw new Error('killed');
        }
        written++;
        return write();
      },
    };
    let attempts = 0;
    for (let stored = (await store.pendingOutbox())[0]; stored; stored = (await store.pendingOutbox())[0]) {
      attempts++;
      await deliverEntry(d, stored).catch((e: Error) => assert.equal(e.message, 'killed'));
    }
    assert.equal(attempts, 4, 'three attempts died: after each chunk and after the file');
    const posted = h.emu.botMessages();
    assert.deepEqual(
      posted.map((m) => m.content),
      ['first part', 'second part', ''],
    );
    assert.equal(posted[2]!.uploads?.length, 1);
    assert.equal(h.emu.world.nonceRepeats, 3, 'each resend was answered with the message already made');
  } finally {
    await h.adapter.stop();
    await h.close();
  }
});

const previewAgainTitle =
  'a run again after a crash that left its preview unjournaled edits that preview instead of posting another';
test(previewAgainTitle, async () => {
  const h = await discordHarness();
  await h.adapter.start(async () => undefined);
  try {
    const queue = new OutboundQueue(h.adapter, { backoffMs: 5 });
    const caps = { ...h.adapter.capabilities, editIntervalMs: 5 };
    // The journal write of the preview's id never completes: the process dies first.
    const dying = { key: 'preview:discord:m-1', created: () => new Promise<void>(() => undefined) };
    const first = new ReplyStream(queue, caps, h.directTarget(), silentLogger, dying);
    first.onEvent({ type: 'text-delta', text: 'Working on' });
    await until(() => h.emu.botMessages().length === 1, "the first run's preview");
    await first.close();

    // The run again after the restart knows of no preview (none was journaled).
    const again = new ReplyStream(queue, caps, h.directTarget(), silentLogger, { key: 'preview:discord:m-1' });
    again.onEvent({ type: 'text-delta', text: 'Working on it again' });
    await until(() => h.emu.botMessages()[0]?.content === 'Working on it again', 'the preview shown again');
    const id = await again.close();
    assert.equal(h.emu.botMessages().length, 1, 'one preview, not a stray one beside a second');
    assert.equal(id, h.emu.botMessages()[0]!.id);
  } finally {
    await h.adapter.stop();
    await h.close();
  }
});
