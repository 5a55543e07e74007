// Recorded Slack Events API payloads (test/fixtures/slack, shaped as Slack's docs show them)
// replayed through normalize: keys, threads, mention stripping, and what is dropped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { decodeConversationKey, type InboundMessage, type NormalizeResult } from '../../src/adapters/index.ts';
import {
  normalizeSlackAction,
  normalizeSlackCommand,
  normalizeSlackEvent,
  toPlainText,
} from '../../src/adapters/slack/index.ts';

// The fixtures' bot is U0LAN0Z89 in team T061EG9RZ.
const ctx = { botUserId: 'U0LAN0Z89', teamId: 'T061EG9RZ', receivedAt: new Date('2024-04-01T10:00:00Z') };
const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/slack/${name}.json`, import.meta.url), 'utf8'));
const run = (name: string): NormalizeResult => normalizeSlackEvent(fixture(name), ctx);
function message(name: string): InboundMessage {
  const r = run(name);
  assert.equal(r.kind, 'message', `${name}: ${r.kind === 'message' ? '' : r.reason}`);
  return (r as { message: InboundMessage }).message;
}

describe('slack normalize (recorded payloads)', () => {
  test('the ts is the message’s place in the platform’s order', () => {
    assert.equal(message('message-im').order, '1355517523.000005');
  });

  test('a DM is direct, keyed by team and channel, with the event id as message id', () => {
    const m = message('message-im');
    assert.equal(m.id, 'slack:Ev0PV52K25');
    assert.equal(m.conversationKey, 'slack:T061EG9RZ:D024BE91L');
    assert.equal(m.isDirect, true);
    assert.equal(m.mentionsBot, false);
    assert.equal(m.chatId, 'D024BE91L');
    assert.equal(m.threadId, undefined);
    assert.equal(m.messageId, '1355517523.000005');
    assert.equal(m.userId, 'U2147483697');
    assert.equal(m.text, 'Hello hello can you hear me?');
    assert.equal(m.receivedAt, '2024-04-01T10:00:00.000Z');
    assert.deepEqual(decodeConversationKey(m.conversationKey), {
      platform: 'slack',
      scope: 'T061EG9RZ',
      chatId: 'D024BE91L',
    });
  });

  test('a DM inside a thread is its own conversation', () => {
    const m = message('message-im-thread');
    assert.equal(m.conversationKey, 'slack:T061EG9RZ:D024BE91L:1355517523.000005');
    assert.equal(m.threadId, '1355517523.000005');
    assert.equal(m.isDirect, true);
  });

  test('a channel mention starts a thread at the mention and loses the mention text', () => {
    const m = message('app-mention');
    assert.equal(m.id, 'slack:Ev0LAN670R');
    assert.equal(m.isDirect, false);
    assert.equal(m.mentionsBot, true);
    assert.equal(m.text, 'is it everything a river should be?');
    assert.equal(m.threadId, '1515449522.000016');
    assert.equal(m.conversationKey, 'slack:T061EG9RZ:C0LAN2Q65:1515449522.000016');
  });

  test('a mention inside a thread continues that thread; Slack markup becomes readable text', () => {
    const m = message('app-mention-in-thread');
    assert.equal(m.conversationKey, 'slack:T061EG9RZ:C0LAN2Q65:1515449522.000016');
    assert.equal(m.messageId, '1515449600.000200');
    assert.equal(
      m.text,
      'follow-up for : and the delta & the <estuary>? see the article (https://en.wikipedia.org/wiki/River) and ask ' +
        '@U0G9QF9C6',
    );
  });

  test('a channel message without a mention is delivered but not addressed to the bot', () => {
    const m = message('message-channel');
    assert.equal(m.mentionsBot, false);
    assert.equal(m.isDirect, false);
    assert.equal(m.conversationKey, 'slack:T061EG9RZ:C0LAN2Q65:1515449700.000300');
  });

  test('the message copy of a mention is dropped (its app_mention carries it), so it is not answered twice', () => {
    const r = run('message-channel-mentioning-bot');
    assert.equal(r.kind, 'ignored');
  });

  test('bots, edits and joins are dropped', () => {
    for (const name of ['message-bot', 'message-from-app-bot', 'message-changed', 'channel-join'])
      assert.equal(run(name).kind, 'ignored', name);
  });

  test("the bot's own messages are dropped even without bot_id", () => {
    const body = fixture('message-im') as { event: Record<string, unknown> };
    body.event.user = 'U0LAN0Z89';
    assert.equal(normalizeSlackEvent(body, ctx).kind, 'ignored');
  });

  test('shared files become attachments', () => {
    const m = message('message-file-share');
    assert.equal(m.text, 'here is the log');
    assert.deepEqual(m.attachments, [
      {
        id: 'F0S43PZDF',
        kind: 'document',
        name: 'build.log',
        mimeType: 'text/plain',
        size: 1234,
        url: 'https://files.slack.com/files-pri/T061EG9RZ-F0S43PZDF/download/build.log',
      },
    ]);
  });

  test('without an event id the id falls back to channel and ts', () => {
    const body = fixture('message-im') as Record<string, unknown>;
    delete body.event_id;
    const r = normalizeSlackEvent(body, ctx);
    assert.equal(r.kind === 'message' && r.message.id, 'slack:D024BE91L:1355517523.000005');
  });

  test('malformed payloads are reported, never thrown', () => {
    const bad: unknown[] = [
      null,
      'text',
      [],
      { type: 'event_callback' },
      { type: 'event_callback', event: 'x' },
      { type: 'event_callback', team_id: 'T1', event: { type: 'message', channel: 42, user: 'U1', ts: '1.2' } },
      { type: 'event_callback', team_id: 'T1', event: { type: 'message', channel: 'C1', ts: '1.2' } },
      {
        type: 'event_callback',
        team_id: 'T1',
        event: { type: 'message', channel: 'C1', user: 'U1', ts: '1.2', text: { a: 1 } },
      },
      { type: 'event_callback', team_id: 'T:1', event: { type: 'message', channel: 'C1', user: 'U1', ts: '1.2' } },
    ];
    for (const b of bad) assert.equal(normalizeSlackEvent(b, ctx).kind, 'malformed', JSON.stringify(b));
  });

  test('url_verification and other event types are not messages', () => {
    assert.equal(run('url-verification').kind, 'ignored');
    assert.equal(
      normalizeSlackEvent({ type: 'event_callback', team_id: 'T1', event: { type: 'reaction_added' } }, ctx).kind,
      'ignored',
    );
  });

  test('toPlainText keeps special mentions and channel names readable', () => {
    assert.equal(
      toPlainText('<!here> see <#C123|general> &amp; <!subteam^S1|@oncall>'),
      '@here see #general & @oncall',
    );
  });
});

describe('slack slash commands and block actions (recorded payloads)', () => {
  test('`/boxbot model <name>` is the text /model <name>, keyed by the channel, with the trigger as id', () => {
    const r = normalizeSlackCommand(fixture('slash-command'), ctx);
    assert.equal(r.kind, 'message');
    const m = (r as { message: InboundMessage }).message;
    assert.equal(m.id, 'slack:command:13345224609.738474920.8088930838d88f008e0');
    assert.equal(m.text, '/model anthropic/claude-sonnet-4-5');
    assert.equal(m.conversationKey, 'slack:T061EG9RZ:C2147483705');
    assert.deepEqual([m.userId, m.userName, m.isDirect, m.mentionsBot], ['U2147483697', 'Steve', false, true]);
    const bare = normalizeSlackCommand({ ...(fixture('slash-command') as object), text: '  ' }, ctx);
    assert.equal((bare as { message: InboundMessage }).message.text, '/help');
  });

  test('a button press is a message with the action, in the thread of the message it was under', () => {
    const r = normalizeSlackAction(fixture('block-actions'), ctx);
    assert.equal(r.kind, 'message');
    const m = (r as { message: InboundMessage }).message;
    assert.equal(m.id, 'slack:action:12466734323.1395872398.3a0e6e4a7e2b3c1d9f8a4c2e1b0d9f8a');
    assert.equal(m.text, '');
    assert.equal(m.conversationKey, 'slack:T061EG9RZ:C2147483705:1712000000.000100');
    assert.deepEqual(m.action, {
      id: 'approve:42',
      messageId: '1712000100.000200',
      handle: 'https://hooks.slack.com/actions/T061EG9RZ/1234/5678',
    });
    assert.equal(m.userId, 'U2147483697');
  });

  test('bad interactivity payloads are reported, never thrown', () => {
    for (const bad of [
      null,
      42,
      {},
      { command: '/boxbot' },
      { command: '/boxbot', channel_id: 'C1', user_id: 'U1', text: 7 },
    ])
      assert.equal(normalizeSlackCommand(bad, ctx).kind, 'malformed', JSON.stringify(bad));
    const press = fixture('block-actions') as Record<string, unknown>;
    assert.equal(normalizeSlackAction({ ...press, actions: [] }, ctx).kind, 'malformed');
    assert.equal(normalizeSlackAction({ ...press, channel: null, container: {} }, ctx).kind, 'malformed');
    assert.equal(normalizeSlackAction({ type: 'view_submission' }, ctx).kind, 'ignored');
  });
});
