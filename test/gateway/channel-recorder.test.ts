// The bot's own posts in a recorded channel: a streamed answer (a preview, edited many times) is
// written to the channel log once, with its final text, when the reply is final, or at shutdown;
// an edit made after that is written as an edit. Other messages are written as they come.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdapterApiError } from '../../src/adapters/errors.ts';
import { configSchema } from '../../src/config/schema.ts';
import { silentLogger } from '../../src/core/log.ts';
import { createChannelRecorder, recordingAdapter } from '../../src/gateway/channel-recorder.ts';
import { OutboundQueue } from '../../src/gateway/outbound-queue.ts';
import { deliverEntry, outboxEntryOf } from '../../src/gateway/reply.ts';
import { type ChannelLogStore, createMemoryStore } from '../../src/store/index.ts';
import { FakeAdapter, fakeCapabilities } from './fakes.ts';

const DAY = 24 * 3600_000;
const range = { from: new Date(Date.now() - DAY).toISOString(), to: new Date(Date.now() + DAY).toISOString() };

/** The store's channel log, counting its writes. */
function counted(log: ChannelLogStore) {
  const writes: string[] = [];
  const store: ChannelLogStore = {
    ...log,
    put: (entries) => (writes.push(`put ${entries.length}`), log.put(entries)),
    edit: (channel, edit) => (writes.push('edit'), log.edit(channel, edit)),
    remove: (channel, id, at) => (writes.push('remove'), log.remove(channel, id, at)),
  };
  return { store, writes };
}

test('a streamed answer costs one channel-log write, with its final text; a later edit one more', async () => {
  const config = configSchema.parse({
    channels: { telegram: { chats: { '-100500': { history: { record: true } } } } },
  });
  const { store, writes } = counted(createMemoryStore().channelLog);
  const recorder = createChannelRecorder({ config, channelLog: store, log: silentLogger });
  const adapter = recordingAdapter(new FakeAdapter('telegram'), recorder);
  const target = { conversationKey: 'telegram:-100500', chatId: '-100500' };
  recorder.observe({
    kind: 'message',
    channel: 'telegram:-100500',
    messageId: '1000',
    // A second before the answer: posted in the same millisecond, the two would sort either way.
    at: new Date(Date.now() - 1000).toISOString(),
    userId: '42',
    userName: 'ada',
    text: 'when is the deploy?',
    files: [],
  });
  // The reply stream's preview and its edits, then the final text replacing it (reply.ts).
  const { messageId } = await adapter.send(target, '…', { preview: true });
  let text = '';
  for (const word of 'The deploy is at five today, after the freeze'.split(' ')) {
    text += `${text ? ' ' : ''}${word}`;
    await adapter.edit(target, messageId, text, { preview: true });
  }
  await recorder.idle();
  assert.deepEqual(writes, ['put 1'], 'the user’s message; the answer is still being composed');
  await adapter.edit(target, messageId, 'The deploy is at five today, after the freeze ends.');
  await recorder.idle();
  assert.deepEqual(writes, ['put 1', 'put 1'], 'the user’s message, then the answer once');
  const log = await store.list('telegram:-100500', range);
  assert.deepEqual(
    log.map((e) => [e.bot ? 'BOT' : e.userName, e.text, e.editedAt === undefined]),
    [
      ['ada', 'when is the deploy?', true],
      ['BOT', 'The deploy is at five today, after the freeze ends.', true],
    ],
  );
  // Edited again once written: an edit.
  await adapter.edit(target, messageId, 'The deploy is at six today (moved).');
  await recorder.idle();
  assert.deepEqual(writes, ['put 1', 'put 1', 'edit']);
  assert.equal((await store.list('telegram:-100500', range))[1]!.text, 'The deploy is at six today (moved).');
});

test('a preview never made final (its answer went as a new message) is written as it is at close', async () => {
  const config = configSchema.parse({ channels: { telegram: { chats: { '-7': { history: { record: true } } } } } });
  const { store, writes } = counted(createMemoryStore().channelLog);
  const recorder = createChannelRecorder({ config, channelLog: store, log: silentLogger });
  const adapter = recordingAdapter(new FakeAdapter('telegram'), recorder);
  const target = { conversationKey: 'telegram:-7', chatId: '-7' };
  const { messageId } = await adapter.send(target, 'draft', { preview: true });
  await adapter.edit(target, messageId, 'draft, longer', { preview: true });
  await adapter.send(target, 'the answer');
  await recorder.idle();
  assert.deepEqual(
    (await store.list('telegram:-7', range)).map((e) => e.text),
    ['the answer'],
  );
  await recorder.close();
  assert.deepEqual(writes, ['put 1', 'put 1']);
  assert.deepEqual((await store.list('telegram:-7', range)).map((e) => e.text).sort(), ['draft, longer', 'the answer']);
});

test('a preview that already shows the final text is written when the delivery says so', async () => {
  const config = configSchema.parse({ channels: { telegram: { chats: { '-8': { history: { record: true } } } } } });
  const { store, writes } = counted(createMemoryStore().channelLog);
  const recorder = createChannelRecorder({ config, channelLog: store, log: silentLogger });
  const adapter = recordingAdapter(new FakeAdapter('telegram'), recorder);
  const target = { conversationKey: 'telegram:-8', chatId: '-8' };
  const { messageId } = await adapter.send(target, 'The freeze', { preview: true });
  await adapter.edit(target, messageId, 'The freeze ends at noon.', { preview: true });
  await recorder.idle();
  assert.deepEqual(writes, []);
  // deliverEntry: the preview shows exactly the answer, so no edit replaces it (reply.ts).
  adapter.previewFinal!(target, messageId);
  await recorder.idle();
  assert.deepEqual(writes, ['put 1']);
  assert.deepEqual(
    (await store.list('telegram:-8', range)).map((e) => e.text),
    ['The freeze ends at noon.'],
  );
});

test('a preview deleted before its answer was final stays out of the log, at close too', async () => {
  const config = configSchema.parse({ channels: { telegram: { chats: { '-9': { history: { record: true } } } } } });
  const { store } = counted(createMemoryStore().channelLog);
  const recorder = createChannelRecorder({ config, channelLog: store, log: silentLogger });
  const adapter = recordingAdapter(new FakeAdapter('telegram'), recorder);
  const target = { conversationKey: 'telegram:-9', chatId: '-9' };
  const { messageId } = await adapter.send(target, 'a draft someone deleted', { preview: true });
  recorder.observe({ kind: 'delete', channel: 'telegram:-9', messageId, at: new Date().toISOString() });
  await adapter.send(target, 'the answer');
  adapter.previewFinal!(target, messageId);
  await recorder.close();
  assert.deepEqual(
    (await store.list('telegram:-9', range)).map((e) => e.text),
    ['the answer'],
  );
});

test('a preview the answer could not replace (sent as new) is written as it stands, before close', async () => {
  const config = configSchema.parse({ channels: { telegram: { chats: { '-10': { history: { record: true } } } } } });
  const memory = createMemoryStore();
  const recorder = createChannelRecorder({ config, channelLog: memory.channelLog, log: silentLogger });
  const fake = new FakeAdapter('telegram', fakeCapabilities({ maxTextLength: 4000 }));
  const adapter = recordingAdapter(fake, recorder);
  const target = { conversationKey: 'telegram:-10', chatId: '-10' };
  const { messageId } = await adapter.send(target, 'The deploy is at', { preview: true });
  // The platform no longer lets the preview be edited (Telegram: 48 hours, or an admin restricted it).
  fake.edit = async () => {
    throw new AdapterApiError('telegram', 400, "Bad Request: message can't be edited");
  };
  const entry = outboxEntryOf('telegram:-10:77', target, 'The deploy is at five.', fake.capabilities, messageId, '…');
  await memory.delivery.putOutbox(entry);
  const queue = new OutboundQueue(adapter, { backoffMs: 5 });
  await deliverEntry({ queue, store: memory.delivery, log: silentLogger, persist: (_what, write) => write() }, entry);
  await recorder.idle();
  assert.deepEqual((await memory.channelLog.list('telegram:-10', range)).map((e) => e.text).sort(), [
    'The deploy is at',
    'The deploy is at five.',
  ]);
});
