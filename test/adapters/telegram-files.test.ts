// Telegram files through the emulator: an image Telegram cannot process as a photo still reaches
// the user as a document; a file in a forum topic lands in that topic, replying to the question; a
// file past the Bot API download limit is refused naming that limit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTooLarge } from '../../src/adapters/index.ts';
import { telegramHarness } from '../emulators/telegram/harness.ts';
import { GET_FILE_LIMIT } from '../emulators/telegram/index.ts';
import type { ChatInfo } from '../emulators/telegram/updates.ts';
import { PNG_1X1 } from './contract.ts';

const FORUM: ChatInfo = { id: -1009876543210, type: 'supergroup', title: 'Boxbot forum', is_forum: true };

test('a file declared an image that Telegram cannot process as a photo is sent again as a document', async (t) => {
  const h = await telegramHarness();
  t.after(() => h.close());
  const bytes = new Uint8Array(Buffer.from('<html>not really a png</html>'));
  const target = { conversationKey: 'telegram:4242', chatId: '4242' };
  const sent = await h.adapter.sendFile!(target, { name: 'chart.png', mimeType: 'image/png', bytes, caption: 'Chart' });
  const files = h.emulator.botFiles('4242');
  assert.equal(files.length, 1);
  assert.equal(files[0]!.kind, 'document');
  assert.equal(files[0]!.messageId, sent.messageId);
  assert.equal(files[0]!.caption, 'Chart');
  assert.deepEqual(
    h.emulator.calls.filter((c) => c.method.startsWith('send')).map((c) => [c.method, c.status]),
    [
      ['sendPhoto', 400],
      ['sendDocument', 200],
    ],
  );
});

test('a file in a forum topic lands in that topic, as a reply to the question', async (t) => {
  const h = await telegramHarness();
  t.after(() => h.close());
  h.emulator.addChat(FORUM);
  const question = h.emulator.userMessage({
    chat: FORUM,
    from: { id: 5151, is_bot: false, first_name: 'Grace' },
    text: 'the chart?',
    threadId: 77,
  });
  const asked = String((question.message as { message_id: number }).message_id);
  const target = {
    conversationKey: `telegram:${FORUM.id}:77`,
    chatId: String(FORUM.id),
    threadId: '77',
    replyToMessageId: asked,
  };
  await h.adapter.sendFile!(target, { name: 'c.png', mimeType: 'image/png', bytes: new Uint8Array(PNG_1X1) });
  const [file] = h.emulator.botMessages(String(FORUM.id)).filter((m) => m.file);
  assert.equal(file?.file?.kind, 'photo');
  assert.equal(file?.threadId, '77');
  assert.equal(file?.replyTo, asked);
  assert.deepEqual([...file!.file!.bytes], [...PNG_1X1]);
});

test('a file past the Bot API download limit is refused naming that limit, not a larger own cap', async (t) => {
  const h = await telegramHarness();
  t.after(() => h.close());
  const big = h.emulator.files.add(new Uint8Array(GET_FILE_LIMIT + 1), 'documents', 'bin');
  const attachment = { id: big.fileId, kind: 'document' as const, name: 'big.bin' };
  await assert.rejects(h.adapter.fetchAttachment!(attachment, { maxBytes: 2 * GET_FILE_LIMIT }), (e: unknown) => {
    assert.ok(isTooLarge(e));
    assert.match((e as Error).message, new RegExp(`the limit is ${GET_FILE_LIMIT} bytes`));
    return true;
  });
});
