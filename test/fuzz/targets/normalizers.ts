// Fuzz targets: the platform normalizers. Each promises to report a bad payload (`malformed` or
// `ignored`), never to throw, and a message it builds must carry a conversation key the one
// decoder accepts, with the same chat and thread, and a valid time.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeConversationKey } from '../../../src/adapters/conversation-key.ts';
import { parseInteraction } from '../../../src/adapters/discord/interactions.ts';
import { normalizeMessageCreate } from '../../../src/adapters/discord/normalize.ts';
import { normalizeSlackAction, normalizeSlackCommand } from '../../../src/adapters/slack/interactions.ts';
import { normalizeSlackEvent } from '../../../src/adapters/slack/normalize.ts';
import { normalizeUpdate, updateIdOf } from '../../../src/adapters/telegram/normalize.ts';
import type { NormalizeResult, Platform } from '../../../src/adapters/types.ts';
import { normalizeWebMessage, normalizeWebPress } from '../../../src/adapters/web/normalize.ts';
import type { FuzzTarget } from '../harness.ts';
import { fixtures, type Json, markdownText, mutated, payload } from '../inputs.ts';

/** The invariants of any normalize result. */
export function checkResult(r: NormalizeResult, platform: Platform): void {
  assert.ok(['message', 'ignored', 'malformed'].includes(r.kind), `unknown result kind ${r.kind}`);
  if (r.kind !== 'message') {
    assert.equal(typeof r.reason, 'string');
    return;
  }
  const m = r.message;
  assert.equal(m.platform, platform);
  const ref = decodeConversationKey(m.conversationKey);
  assert.equal(ref.platform, platform);
  assert.equal(ref.chatId, m.chatId, 'chatId differs from the key');
  assert.equal(ref.threadId, m.threadId, 'threadId differs from the key');
  for (const s of [m.id, m.userId, m.userName, m.text]) assert.equal(typeof s, 'string');
  assert.equal(typeof m.isDirect, 'boolean');
  assert.equal(typeof m.mentionsBot, 'boolean');
  assert.ok(Array.isArray(m.attachments));
  for (const a of m.attachments) assert.equal(typeof a.id, 'string');
  if (m.action) assert.equal(typeof m.action.id, 'string');
  assert.ok(!Number.isNaN(Date.parse(m.receivedAt)), `receivedAt ${m.receivedAt} is not a time`);
}

const telegramBot = { id: 777000111, username: 'boxbot_test_bot' };
const telegramDocs = fixtures('telegram');

/** A recorded message whose text and entities are replaced: mention cutting runs on odd offsets. */
const telegramEntities = fc
  .tuple(
    fc.constantFrom(...telegramDocs.filter((d) => (d as { message?: unknown }).message)),
    markdownText,
    fc.array(
      fc.record({
        type: fc.constantFrom('mention', 'text_mention', 'bot_command', 'bold', 'url'),
        offset: fc.integer({ min: -2, max: 90 }),
        length: fc.integer({ min: -1, max: 90 }),
        user: fc.constant({ id: telegramBot.id }),
      }),
      { maxLength: 5 },
    ),
  )
  .map(([doc, text, entities]) => {
    const d = structuredClone(doc) as { message: Record<string, unknown> };
    d.message.text = `@boxbot_test_bot ${text} /start@boxbot_test_bot`;
    d.message.entities = entities;
    return d;
  });

/** Telegram updates (long polling and webhook bodies). */
export const telegramNormalize: FuzzTarget = {
  name: 'telegram normalize',
  input: fc.oneof({ weight: 4, arbitrary: payload(telegramDocs) }, { weight: 1, arbitrary: telegramEntities }),
  check(update) {
    updateIdOf(update);
    checkResult(normalizeUpdate(update, telegramBot), 'telegram');
  },
};

const discordDocs = fixtures('discord', (d) => (d as { d: never }).d);
const discordContexts = fc.record(
  {
    botId: fc.constantFrom('1234567890123456789', '1'),
    threadParentId: fc.constantFrom('1300000000000000001', '1290000000000000002'),
    botRoleIds: fc.constant(['1290000000000000001']),
    allowBots: fc.boolean(),
    receivedAt: fc.constant(new Date('2026-03-14T09:26:53Z')),
  },
  { requiredKeys: ['botId'] },
);

/** Discord MESSAGE_CREATE and INTERACTION_CREATE dispatch data. */
export const discordNormalize: FuzzTarget<[unknown, Parameters<typeof normalizeMessageCreate>[1]]> = {
  name: 'discord normalize',
  input: fc.tuple(payload(discordDocs), discordContexts),
  check([d, ctx]) {
    checkResult(normalizeMessageCreate(d, ctx), 'discord');
    const interaction = parseInteraction(d, ctx.receivedAt);
    if (typeof interaction !== 'string') checkResult(interaction.result, 'discord');
  },
};

const slackDocs = fixtures('slack');
const slackContexts = fc.record(
  {
    botUserId: fc.constantFrom('U0LAN0Z89', 'U.*+?'),
    teamId: fc.constantFrom('T061EG9RZ', 'T1'),
    receivedAt: fc.constant(new Date('2026-03-14T09:26:53Z')),
  },
  { requiredKeys: ['receivedAt'] },
);

/** Slack Events API bodies, slash commands and block actions (HTTP and Socket Mode alike). */
export const slackNormalize: FuzzTarget<[unknown, Parameters<typeof normalizeSlackEvent>[1]]> = {
  name: 'slack normalize',
  input: fc.tuple(
    fc.oneof(payload(slackDocs), mutated(slackDocs.map((d) => (d as { payload?: never }).payload ?? d))),
    slackContexts,
  ),
  check([body, ctx]) {
    checkResult(normalizeSlackEvent(body, ctx), 'slack');
    checkResult(normalizeSlackCommand(body, ctx), 'slack');
    checkResult(normalizeSlackAction(body, ctx), 'slack');
  },
};

const webDocs: Json[] = [
  { session: 'tab-12345678', text: 'hello', id: 'msg-00000001' },
  { session: 'tab-12345678', text: '', id: 'msg-00000002', attachments: ['0123456789abcdef01234567'] },
  { session: 'tab-12345678', messageId: '12', button: 'approve:1' },
];

/** Web chat POST bodies: messages and button presses. */
export const webNormalize: FuzzTarget<[unknown, string]> = {
  name: 'web normalize',
  input: fc.tuple(payload(webDocs), fc.oneof(fc.constant('press-1'), fc.string({ maxLength: 20 }))),
  check([body, pressId]) {
    const at = new Date('2026-03-14T09:26:53Z');
    checkResult(normalizeWebMessage(body, at), 'web');
    checkResult(normalizeWebPress(body, pressId, at), 'web');
  },
};
