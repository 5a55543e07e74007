// Recorded MESSAGE_CREATE frames replayed through the Discord normalizer: keys, mention gating,
// mention stripping, threads, DMs, attachments, and what is skipped or dropped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  type DiscordNormalizeResult,
  type NormalizeContext,
  normalizeMessageCreate,
  parseInteraction,
} from '../../src/adapters/discord/index.ts';
import { decodeConversationKey, type InboundMessage } from '../../src/adapters/index.ts';

const BOT = '1234567890123456789';
const BOT_ROLE = '1290000000000000001';
const GUILD = '197038439483310086';
const CHANNEL = '290926798999357250';
const THREAD = '1290926798999357999';
const DM = '319674150115610528';

function fixture(name: string): { d: unknown } {
  return JSON.parse(
    readFileSync(new URL(`../fixtures/discord/message-create-${name}.json`, import.meta.url), 'utf8'),
  ) as { d: unknown };
}

function run(name: string, ctx: Partial<NormalizeContext> = {}): DiscordNormalizeResult {
  return normalizeMessageCreate(fixture(name).d, { botId: BOT, receivedAt: new Date('2026-03-14T09:27:00Z'), ...ctx });
}

function ok(name: string, ctx: Partial<NormalizeContext> = {}): InboundMessage {
  const r = run(name, ctx);
  assert.ok(r.kind === 'message', `expected ${name} to normalize, got ${JSON.stringify(r)}`);
  return r.message;
}

test('a guild mention: channel key, mentionsBot, mention removed from the text', () => {
  const m = ok('guild-mention');
  assert.equal(m.id, 'discord:1350124398765432101');
  assert.equal(m.messageId, '1350124398765432101');
  assert.equal(m.conversationKey, `discord:${GUILD}:${CHANNEL}`);
  assert.deepEqual(decodeConversationKey(m.conversationKey), { platform: 'discord', scope: GUILD, chatId: CHANNEL });
  assert.equal(m.chatId, CHANNEL);
  assert.equal(m.threadId, undefined);
  assert.equal(m.isDirect, false);
  assert.equal(m.mentionsBot, true);
  assert.equal(m.text, "what's the weather in Paris?");
  assert.equal(m.userId, '80351110224678912');
  assert.equal(m.userName, 'Ada');
  assert.equal(m.receivedAt, '2026-03-14T09:27:00.000Z');
});

test('the snowflake is the message’s place in the platform’s order', () => {
  assert.equal(ok('guild-mention').order, '1350124398765432101');
});

test('a guild message without a mention is not addressed to the bot and keeps its text', () => {
  const m = ok('guild-plain');
  assert.equal(m.mentionsBot, false);
  assert.equal(m.text, 'anyone up for lunch?');
});

test('the legacy nickname mention <@!id> counts and is stripped; other users read as @name', () => {
  const m = ok('guild-nick-mention');
  assert.equal(m.mentionsBot, true);
  assert.equal(m.text, 'hey, ask @Nelly about the **build**');
});

test("mentioning the bot's managed role counts as mentioning the bot", () => {
  assert.equal(ok('guild-role-mention').mentionsBot, false, 'without knowing the role it is not a mention');
  const m = ok('guild-role-mention', { botRoleIds: [BOT_ROLE] });
  assert.equal(m.mentionsBot, true);
  assert.equal(m.text, 'summarize this channel');
});

test("a reply to the bot's message is addressed to the bot", () => {
  const m = ok('guild-reply-to-bot');
  assert.equal(m.mentionsBot, true);
  assert.equal(m.text, 'and tomorrow?');
  // Even when the user turned the reply ping off (no mention entry), replying still addresses the bot.
  const d = structuredClone(fixture('guild-reply-to-bot').d) as { mentions: unknown[] };
  d.mentions = [];
  const r = normalizeMessageCreate(d, { botId: BOT });
  assert.ok(r.kind === 'message' && r.message.mentionsBot);
});

test('a direct message: dm key, isDirect', () => {
  const m = ok('dm');
  assert.equal(m.conversationKey, `discord:dm:${DM}`);
  assert.equal(m.chatId, DM);
  assert.equal(m.isDirect, true);
  assert.equal(m.text, 'hello there');
});

test('a thread message is keyed under its parent channel with the thread id', () => {
  const m = ok('thread', { threadParentId: CHANNEL });
  assert.equal(m.conversationKey, `discord:${GUILD}:${CHANNEL}:${THREAD}`);
  assert.equal(m.chatId, CHANNEL);
  assert.equal(m.threadId, THREAD);
  assert.equal(m.text, 'and in this thread?');
});

test('attachments are listed (a file without text still arrives)', () => {
  const m = ok('attachment');
  assert.equal(m.text, '');
  assert.deepEqual(m.attachments, [
    {
      id: '1350124399000000001',
      kind: 'document',
      name: 'report.pdf',
      mimeType: 'application/pdf',
      size: 48213,
      url: 'https://cdn.discordapp.com/attachments/319674150115610528/1350124399000000001/report.pdf?ex=1&is=2&hm=3',
    },
  ]);
});

test("the bot's own messages, other bots, system messages and empty bodies are skipped", () => {
  assert.deepEqual(run('own-message'), { kind: 'ignored', reason: 'own-message' });
  assert.deepEqual(run('bot-author'), { kind: 'ignored', reason: 'bot-author' });
  assert.deepEqual(run('member-join'), { kind: 'ignored', reason: 'system-message' });
  assert.deepEqual(run('no-content-intent'), { kind: 'ignored', reason: 'no-content' });
  // Other bots pass when allowed; the bot itself never does.
  assert.equal(run('bot-author', { allowBots: true }).kind, 'message');
  assert.deepEqual(run('own-message', { allowBots: true }), { kind: 'ignored', reason: 'own-message' });
});

test('malformed payloads are reported, never thrown', () => {
  const good = fixture('guild-plain').d as Record<string, unknown>;
  const cases: unknown[] = [
    null,
    'MESSAGE_CREATE',
    [],
    {},
    { ...good, id: 42 },
    { ...good, channel_id: undefined },
    { ...good, author: undefined },
    { ...good, author: { id: 'x', username: 'y' } },
    { ...good, content: { text: 'hi' } },
    { ...good, guild_id: 'guild' },
  ];
  for (const d of cases) {
    const r = normalizeMessageCreate(d, { botId: BOT });
    assert.notEqual(r.kind, 'message', `accepted ${JSON.stringify(d)?.slice(0, 60)}`);
    assert.ok(r.kind === 'malformed' && r.reason.length > 0);
  }
  // Odd optional fields are tolerated: the message still arrives.
  const r = normalizeMessageCreate(
    { ...good, mentions: 'nobody', attachments: [null, { id: 'x' }], member: 7 },
    { botId: BOT },
  );
  assert.ok(r.kind === 'message');
  assert.deepEqual(r.message.attachments, []);
});

function interaction(name: string): InboundMessage {
  const frame = JSON.parse(
    readFileSync(new URL(`../fixtures/discord/interaction-${name}.json`, import.meta.url), 'utf8'),
  ) as { d: unknown };
  const parsed = parseInteraction(frame.d, new Date('2026-03-14T09:27:00Z'));
  assert.ok(typeof parsed !== 'string', String(parsed));
  assert.equal(parsed.result.kind, 'message');
  return (parsed.result as { message: InboundMessage }).message;
}

test('a slash command in a thread is /name value, keyed by the thread, by its member name', () => {
  const m = interaction('command-thread');
  assert.equal(m.id, 'discord:interaction:1300000000000000101');
  assert.equal(m.text, '/model openai/gpt-4o');
  // What the reply names (replyToMessageId) to fill in the deferred response.
  assert.equal(m.messageId, 'interaction:1300000000000000101');
  assert.equal(m.conversationKey, `discord:${GUILD}:${CHANNEL}:${THREAD}`);
  assert.deepEqual(
    [m.chatId, m.threadId, m.userName, m.isDirect, m.mentionsBot],
    [CHANNEL, THREAD, 'Mase', false, true],
  );
});

test('a button press in a DM carries the custom_id, the message and an answer handle', () => {
  const m = interaction('button-dm');
  assert.equal(m.conversationKey, `discord:dm:${DM}`);
  assert.equal(m.text, '');
  assert.equal(m.userId, '53908232506183680');
  assert.deepEqual(m.action, {
    id: 'approve:42',
    messageId: '1300000000000000150',
    handle: `${BOT}:aW50ZXJhY3Rpb246MTMwMDAwMDAwMDAwMDAwMDIwMjpleGFtcGxl`,
  });
});

test('malformed interactions are reported, never thrown', () => {
  for (const bad of [null, 7, {}, { id: '1', application_id: '2', token: 't', type: 9 }])
    assert.equal(typeof parseInteraction(bad), 'string', JSON.stringify(bad));
  const noUser = parseInteraction({ id: '1', application_id: '2', token: 't', type: 2, channel_id: '3', data: {} });
  assert.ok(typeof noUser !== 'string' && noUser.result.kind === 'malformed');
});
