// Recorded Bot API updates (test/fixtures/telegram, shapes as in the Bot API docs) replayed
// through normalizeUpdate: chat kinds, mentions and their removal, topics, files, what is dropped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { InboundMessage, NormalizeResult } from '../../src/adapters/index.ts';
import { normalizeUpdate } from '../../src/adapters/telegram/index.ts';

const BOT = { id: 123456, username: 'boxbot_test_bot' };
const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/telegram/${name}.json`, import.meta.url), 'utf8'));
const run = (name: string): NormalizeResult => normalizeUpdate(fixture(name), BOT);
function message(name: string): InboundMessage {
  const r = run(name);
  assert.equal(r.kind, 'message', `${name}: ${r.kind === 'message' ? '' : r.reason}`);
  return (r as { message: InboundMessage }).message;
}

test('a private text message is direct, keyed by the chat, with the update as id', () => {
  const m = message('private-text');
  assert.equal(m.id, 'telegram:123456:100000001');
  assert.equal(m.conversationKey, 'telegram:4242');
  assert.equal(m.chatId, '4242');
  assert.equal(m.threadId, undefined);
  assert.equal(m.messageId, '11');
  assert.equal(m.userId, '4242');
  assert.equal(m.userName, 'ada');
  assert.equal(m.text, 'hello there');
  assert.equal(m.isDirect, true);
  assert.equal(m.receivedAt, new Date(1717171717 * 1000).toISOString());
  assert.deepEqual(m.attachments, []);
});

test('the update id is the message’s place in the platform’s order', () => {
  assert.equal(message('private-text').order, '100000001');
});

test('a bare command in a private chat is addressed to the bot', () => {
  const m = message('private-command');
  assert.equal(m.mentionsBot, true);
  assert.equal(m.text, '/reset');
});

test('group mentions via entity are detected and stripped, wherever they stand', () => {
  const start = message('group-mention');
  assert.equal(start.isDirect, false);
  assert.equal(start.mentionsBot, true);
  assert.equal(start.text, 'what is up');
  assert.equal(start.conversationKey, 'telegram:-1001234567890');
  const middle = message('group-mention-middle');
  assert.equal(middle.mentionsBot, true, 'usernames compare case-insensitively');
  assert.equal(middle.text, 'hey, can you summarise this?');
  const emoji = message('group-mention-after-emoji');
  assert.equal(emoji.mentionsBot, true);
  assert.equal(emoji.text, '👋 hi', 'entity offsets count UTF-16 code units');
  const textMention = message('group-text-mention');
  assert.equal(textMention.mentionsBot, true);
  assert.equal(textMention.text, 'please translate this');
});

test('group messages not addressed to the bot keep mentionsBot false and their text', () => {
  for (const name of [
    'group-plain',
    'group-mention-other',
    'group-reply-to-human',
    'group-command-other-bot',
    'group-command-bare',
  ]) {
    const m = message(name);
    assert.equal(m.mentionsBot, false, name);
  }
  assert.equal(message('group-mention-other').text, '@someone_else look at this');
  assert.equal(message('group-command-other-bot').text, '/help@other_helper_bot');
});

test('a reply to the bot counts as addressing it', () => {
  const m = message('group-reply-to-bot');
  assert.equal(m.mentionsBot, true);
  assert.equal(m.text, 'and what about tomorrow?');
});

test('/command@botname addresses the bot and keeps the command without the name', () => {
  assert.equal(message('group-command-botname').mentionsBot, true);
  assert.equal(message('group-command-botname').text, '/help');
  assert.equal(message('group-command-args').text, '/ask how far is the moon');
});

test('forum topics become threads; the implicit reply to the topic opener is not a reply to the bot', () => {
  const m = message('forum-topic-message');
  assert.equal(m.conversationKey, 'telegram:-1009876543210:41');
  assert.equal(m.threadId, '41');
  assert.equal(m.mentionsBot, true);
  assert.equal(m.text, 'status of the deploy?');
  const quiet = message('forum-topic-no-mention');
  assert.equal(quiet.threadId, '41');
  assert.equal(quiet.mentionsBot, false, 'the bot created the topic, but nobody replied to it');
  assert.equal(message('forum-topic-reply-to-bot').mentionsBot, true);
  const general = message('forum-general-topic');
  assert.equal(general.conversationKey, 'telegram:-1009876543210');
  assert.equal(general.threadId, undefined);
});

test('files become attachments; a caption is the text and its mention is stripped', () => {
  const photo = message('photo-with-caption');
  assert.equal(photo.text, 'what is in this picture?');
  assert.equal(photo.mentionsBot, true);
  assert.deepEqual(photo.attachments, [
    { id: 'AgACAgQAAxkBAAIBsmS_large', kind: 'image', name: 'photo.jpg', size: 98231 },
  ]);
  const doc = message('private-document');
  assert.equal(doc.text, '');
  assert.deepEqual(doc.attachments, [
    { id: 'BQACAgQAAxkBAAIBs2S_doc', kind: 'document', name: 'report.pdf', mimeType: 'application/pdf', size: 48213 },
  ]);
});

test('bots, edits, channel posts and service messages are ignored, not delivered', () => {
  for (const name of ['from-bot', 'edited-message', 'channel-post', 'service-new-members']) {
    assert.equal(run(name).kind, 'ignored', name);
  }
});

test('a button press (callback_query) is a message with empty text and the action, keyed by its chat', () => {
  const m = message('callback-query');
  assert.equal(m.id, 'telegram:123456:100000025');
  assert.equal(m.conversationKey, 'telegram:-1001234567890');
  assert.equal(m.text, '');
  assert.equal(m.userId, '4242');
  assert.equal(m.isDirect, false);
  assert.equal(m.mentionsBot, true);
  assert.deepEqual(m.action, { id: 'option-1', messageId: '299', handle: '4382bfdwdsb323b2d9' });
  const update = fixture('callback-query') as { callback_query: Record<string, unknown> };
  const { message: _gone, ...inline } = update.callback_query;
  assert.equal(
    normalizeUpdate({ ...update, callback_query: { ...inline, inline_message_id: 'AAA' } }, BOT).kind,
    'ignored',
  );
  const { data: _none, ...game } = update.callback_query;
  assert.equal(normalizeUpdate({ ...update, callback_query: { ...game, game_short_name: 'g' } }, BOT).kind, 'ignored');
  assert.equal(normalizeUpdate({ update_id: 5, callback_query: { id: 7 } }, BOT).kind, 'malformed');
});

test('malformed updates are reported as malformed and never throw', () => {
  const bad: unknown[] = [
    null,
    'text',
    42,
    [],
    {},
    { update_id: 'x' },
    { update_id: -1, message: {} },
    { update_id: 7 },
    { update_id: 8, message: null },
    { update_id: 9, message: { message_id: 1, date: 1, chat: 'nope' } },
    {
      update_id: 10,
      message: { message_id: 1, date: 1, chat: { id: 5, type: 'private' }, from: { id: 'me' }, text: 'x' },
    },
    { update_id: 11, message: { message_id: 1, date: 1, chat: { id: 5, type: 'private' }, from: { id: 5 }, text: 42 } },
  ];
  for (const u of bad) assert.equal(normalizeUpdate(u, BOT).kind, 'malformed', JSON.stringify(u));
});

test('entities pointing outside the text are skipped instead of breaking the message', () => {
  const u = {
    update_id: 12,
    message: {
      message_id: 1,
      date: 1,
      chat: { id: -5, type: 'group' },
      from: { id: 5, is_bot: false, first_name: 'Z' },
      text: '@boxbot_test_bot hi',
      entities: [
        { type: 'mention', offset: 40, length: 16 },
        { type: 'mention', offset: 'a' },
        null,
        { type: 'mention', offset: 0, length: 16 },
      ],
    },
  };
  const r = normalizeUpdate(u, BOT);
  assert.equal(r.kind, 'message');
  assert.equal((r as { message: InboundMessage }).message.text, 'hi');
  assert.equal((r as { message: InboundMessage }).message.userName, 'Z');
});

test('a date no clock can show is malformed, not a crash (found by the fuzz run)', () => {
  // 2^53 seconds is past the last date a JS Date holds: toISOString threw a RangeError.
  for (const date of [9007199254740992, 1e308, -1e308]) {
    const u = {
      update_id: 13,
      message: { message_id: 11, from: { id: 4242 }, chat: { id: 4242, type: 'private' }, date, text: 'hello there' },
    };
    const r = normalizeUpdate(u, BOT);
    assert.equal(r.kind, 'malformed', String(date));
  }
});
