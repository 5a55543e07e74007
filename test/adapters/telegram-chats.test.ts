// Telegram chat behaviour end to end through the emulator: forum topics as threads (replies and
// typing land in the topic), group mentions by entity, by reply and by /command@bot, HTML
// rendering with the plain-text fallback, edits that change nothing, ignored update kinds.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { AdapterApiError, type InboundMessage, type OutboundTarget } from '../../src/adapters/index.ts';
import { ADA, GROUP, telegramHarness } from '../emulators/telegram/harness.ts';
import type { ChatInfo, UserInfo } from '../emulators/telegram/updates.ts';
import { until } from './contract.ts';

const FORUM: ChatInfo = { id: -1009876543210, type: 'supergroup', title: 'Boxbot forum', is_forum: true };
const GRACE: UserInfo = { id: 5151, is_bot: false, first_name: 'Grace' };
const DM = { id: ADA.id, type: 'private' as const, first_name: 'Ada' };
const PARSE_ERROR = 'Bad Request: can\'t parse entities: Unsupported start tag "foo" at byte offset 7';

async function started(t: TestContext) {
  const h = await telegramHarness();
  t.after(() => h.close());
  const got: InboundMessage[] = [];
  await h.adapter.start(async (m) => {
    got.push(m);
  });
  /** Waits for the message with this text. */
  const arrival = async (text: string): Promise<InboundMessage> => {
    await until(() => got.some((m) => m.text === text), JSON.stringify(text));
    return got.find((m) => m.text === text)!;
  };
  return { h, got, arrival };
}

const replyTo = (m: InboundMessage): OutboundTarget => ({
  conversationKey: m.conversationKey,
  chatId: m.chatId,
  ...(m.threadId ? { threadId: m.threadId } : {}),
  ...(m.messageId ? { replyToMessageId: m.messageId } : {}),
});

test('a forum topic is its own conversation, and the reply and typing land in that topic', async (t) => {
  const { h, arrival } = await started(t);
  const topic = h.emulator.createTopic(FORUM, 'Deploys', GRACE);
  const other = h.emulator.createTopic(FORUM, 'Random', GRACE);
  h.emulator.userMessage({ chat: FORUM, from: ADA, threadId: topic, text: `@${h.emulator.bot.username} status?` });
  h.emulator.userMessage({ chat: FORUM, from: ADA, threadId: other, text: `@${h.emulator.bot.username} elsewhere` });
  const m = await arrival('status?');
  assert.equal(m.conversationKey, `telegram:${FORUM.id}:${topic}`);
  assert.equal((await arrival('elsewhere')).conversationKey, `telegram:${FORUM.id}:${other}`);
  await h.adapter.typing(replyTo(m));
  const sent = await h.adapter.send(replyTo(m), 'All green.');
  const posted = h.emulator.botMessages(String(FORUM.id)).find((b) => b.messageId === sent.messageId)!;
  assert.equal(posted.threadId, String(topic));
  assert.equal(posted.replyTo, m.messageId);
  assert.deepEqual(h.emulator.actions.at(-1), { chatId: String(FORUM.id), threadId: String(topic), action: 'typing' });
});

test('in a topic the bot opened, ordinary messages are not taken as replies to the bot', async (t) => {
  const { h, arrival } = await started(t);
  const topic = h.emulator.createTopic(FORUM, 'Bot news', h.emulator.bot);
  h.emulator.userMessage({ chat: FORUM, from: ADA, threadId: topic, text: 'talking among ourselves' });
  assert.equal((await arrival('talking among ourselves')).mentionsBot, false);
});

test('group: addressed by @mention entity, by replying to the bot, or by /command@bot; not otherwise', async (t) => {
  const { h, arrival } = await started(t);
  const bot = h.emulator.bot.username;
  h.emulator.userMessage({ chat: GROUP, from: ADA, text: `hey @${bot} what time is it` });
  const mention = await arrival('hey what time is it');
  assert.equal(mention.mentionsBot, true);

  const answer = await h.adapter.send(replyTo(mention), 'Noon.');
  h.emulator.userMessage({ chat: GROUP, from: GRACE, text: 'and tomorrow?', replyTo: Number(answer.messageId) });
  assert.equal((await arrival('and tomorrow?')).mentionsBot, true);

  h.emulator.userMessage({ chat: GROUP, from: GRACE, text: 'I agree', replyTo: Number(mention.messageId) });
  assert.equal((await arrival('I agree')).mentionsBot, false, 'a reply to a human is not addressed to the bot');

  h.emulator.userMessage({ chat: GROUP, from: ADA, text: `/reset@${bot}` });
  assert.equal((await arrival('/reset')).mentionsBot, true);

  h.emulator.userMessage({ chat: GROUP, from: ADA, text: 'nobody in particular @someone_else' });
  assert.equal((await arrival('nobody in particular @someone_else')).mentionsBot, false);
});

test('markdown goes out as Telegram HTML', async (t) => {
  const { h, arrival } = await started(t);
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'hi' });
  const m = await arrival('hi');
  const sent = await h.adapter.send(replyTo(m), '**Done** for `a < b` & [docs](https://core.telegram.org)');
  const posted = h.emulator.botMessages().find((b) => b.messageId === sent.messageId)!;
  assert.equal(posted.parseMode, 'HTML');
  assert.equal(posted.text, 'Done for a < b & docs');
  assert.deepEqual(
    posted.entities.map((e) => e.type),
    ['bold', 'code', 'text_link'],
  );
});

test('when Telegram cannot parse the HTML, send and edit retry once as plain text', async (t) => {
  const { h, arrival } = await started(t);
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'hi' });
  const target = replyTo(await arrival('hi'));
  const htmlOnly = (p: Record<string, unknown>): boolean => p.parse_mode === 'HTML';
  h.emulator.failNext({
    methods: ['sendMessage'],
    when: htmlOnly,
    count: 1,
    error_code: 400,
    description: PARSE_ERROR,
  });
  const sent = await h.adapter.send(target, '**bold** answer');
  let posted = h.emulator.botMessages().find((b) => b.messageId === sent.messageId)!;
  assert.equal(posted.text, '**bold** answer', 'the user gets the answer, as plain text');
  assert.equal(posted.parseMode, undefined);

  h.emulator.failNext({
    methods: ['editMessageText'],
    when: htmlOnly,
    count: 1,
    error_code: 400,
    description: PARSE_ERROR,
  });
  await h.adapter.edit(target, sent.messageId, '**bold** answer, longer');
  posted = h.emulator.botMessages().find((b) => b.messageId === sent.messageId)!;
  assert.equal(posted.text, '**bold** answer, longer');
  assert.deepEqual(
    h.emulator.calls.filter((c) => c.method === 'sendMessage' || c.method === 'editMessageText').map((c) => c.status),
    [400, 200, 400, 200],
  );
});

test('other 400s are not retried as plain text', async (t) => {
  const { h } = await started(t);
  await assert.rejects(h.adapter.send({ conversationKey: 'telegram:777', chatId: '777' }, '**hi**'), (e: unknown) => {
    assert.ok(e instanceof AdapterApiError);
    assert.equal(e.status, 400);
    assert.equal(e.retryable, false);
    assert.match(e.description, /chat not found/);
    return true;
  });
  assert.equal(h.emulator.calls.filter((c) => c.method === 'sendMessage').length, 1);
});

test('an edit that changes nothing is not an error', async (t) => {
  const { h, arrival } = await started(t);
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'hi' });
  const target = replyTo(await arrival('hi'));
  const sent = await h.adapter.send(target, 'same *text*');
  await h.adapter.edit(target, sent.messageId, 'same *text*');
  assert.equal(h.emulator.calls.at(-1)?.status, 400, 'Telegram said "message is not modified"');
  assert.equal(h.emulator.botMessages().find((b) => b.messageId === sent.messageId)!.edits, 0);
  await assert.rejects(
    h.adapter.edit(target, '9999', 'gone'),
    (e: unknown) => e instanceof AdapterApiError && /not found/.test(e.description),
  );
});

const requestedOnlyTitle =
  'edited messages, channel posts and other bots are not delivered; only messages and button presses are requested';
test(requestedOnlyTitle, async (t) => {
  const { h, got, arrival } = await started(t);
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'edited text', kind: 'edited_message' });
  h.emulator.userMessage({
    chat: { id: -1001112223334, type: 'channel', title: 'News' },
    from: ADA,
    text: 'a channel post',
    kind: 'channel_post',
  });
  h.emulator.userMessage({
    chat: GROUP,
    from: { id: 777, is_bot: true, first_name: 'Other', username: 'other_bot' },
    text: `@${h.emulator.bot.username} beep`,
  });
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'marker' });
  await arrival('marker');
  assert.deepEqual(
    got.map((m) => m.text),
    ['marker'],
  );
  const requested = h.emulator.calls.find((c) => c.method === 'getUpdates')?.params.allowed_updates;
  assert.deepEqual(requested, ['message', 'callback_query']);
});

test('text over 4,096 characters is refused by Telegram as a non-retryable error', async (t) => {
  const { h, arrival } = await started(t);
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'hi' });
  const target = replyTo(await arrival('hi'));
  await assert.rejects(
    h.adapter.send(target, 'y'.repeat(4097), { format: 'plain' }),
    (e: unknown) => e instanceof AdapterApiError && e.status === 400 && !e.retryable,
  );
});
