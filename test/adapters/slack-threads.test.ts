// Where replies land in Slack: in the thread of the mention that triggered them (a mention in
// that thread continues the same conversation), top level in DMs, and the same place when the
// target is rebuilt from the conversation key (scheduled jobs, outbox resumes).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type InboundMessage, type OutboundTarget, targetOf } from '../../src/adapters/index.ts';
import { DM_CHANNEL, GROUP_CHANNEL, recordingSlackAdapter } from '../emulators/slack/harness.ts';
import { until } from './contract.ts';

// What the gateway does with a message: reply to its conversation.
const replyTarget = (m: InboundMessage): OutboundTarget => ({
  conversationKey: m.conversationKey,
  chatId: m.chatId,
  ...(m.threadId ? { threadId: m.threadId } : {}),
  ...(m.messageId ? { replyToMessageId: m.messageId } : {}),
});

describe('slack threads', () => {
  const sink = recordingSlackAdapter('socket');
  const { got } = sink;

  test('the reply lands in the thread of the mention, and a mention in that thread continues it', async () => {
    const first = await sink.h.emu.userSays({ channel: GROUP_CHANNEL, text: 'summarize the release', mention: true });
    await until(() => got.length === 1, 'the mention');
    const m = got[0]!;
    const sent = await sink.h.adapter.send(replyTarget(m), '**Done**: 3 changes');
    const reply = sink.h.emu.botMessages().find((b) => b.ts === sent.messageId)!;
    assert.equal(reply.channel, GROUP_CHANNEL);
    assert.equal(reply.threadTs, first.ts);
    assert.equal(reply.text, '*Done*: 3 changes');

    await sink.h.emu.userSays({ channel: GROUP_CHANNEL, text: 'and the next one?', mention: true, threadTs: first.ts });
    await until(() => got.length === 2, 'the follow-up');
    assert.equal(got[1]!.conversationKey, m.conversationKey);
    const second = await sink.h.adapter.send(replyTarget(got[1]!), 'next');
    assert.equal(sink.h.emu.botMessages().find((b) => b.ts === second.messageId)!.threadTs, first.ts);
  });

  test('two separate mentions are two conversations with two threads', async () => {
    const a = await sink.h.emu.userSays({ channel: GROUP_CHANNEL, text: 'one', mention: true });
    const b = await sink.h.emu.userSays({ channel: GROUP_CHANNEL, text: 'two', mention: true });
    await until(() => got.length === 2, 'both mentions');
    assert.notEqual(got[0]!.conversationKey, got[1]!.conversationKey);
    assert.deepEqual(
      got.map((m) => m.threadId),
      [a.ts, b.ts],
    );
  });

  test('a DM reply is not threaded', async () => {
    await sink.h.emu.userSays({ channel: DM_CHANNEL, text: 'hi' });
    await until(() => got.length === 1, 'the DM');
    const sent = await sink.h.adapter.send(replyTarget(got[0]!), 'hello');
    assert.equal(sink.h.emu.botMessages().find((b) => b.ts === sent.messageId)!.threadTs, undefined);
  });

  test('a target rebuilt from the conversation key posts into the same thread', async () => {
    const first = await sink.h.emu.userSays({ channel: GROUP_CHANNEL, text: 'remind me daily', mention: true });
    await until(() => got.length === 1, 'the mention');
    const sent = await sink.h.adapter.send(targetOf(got[0]!.conversationKey), 'daily reminder');
    const posted = sink.h.emu.botMessages().find((b) => b.ts === sent.messageId)!;
    assert.deepEqual([posted.channel, posted.threadTs], [GROUP_CHANNEL, first.ts]);
  });

  test('the sender is named by users.info, looked up once per user', async () => {
    const before = sink.h.emu.api.count('users.info');
    await sink.h.emu.userSays({ channel: DM_CHANNEL, text: 'who am i', user: 'U0ADA00001', userName: 'ada' });
    await sink.h.emu.userSays({ channel: DM_CHANNEL, text: 'again', user: 'U0ADA00001' });
    await until(() => got.length === 2, 'both messages');
    assert.deepEqual(
      got.map((m) => [m.userId, m.userName]),
      [
        ['U0ADA00001', 'ada'],
        ['U0ADA00001', 'ada'],
      ],
    );
    assert.equal(sink.h.emu.api.count('users.info') - before, 1);
  });

  test('identity is the bot user from auth.test', () => {
    assert.deepEqual(sink.h.adapter.identity(), { id: sink.h.emu.ids.botUserId, name: sink.h.emu.ids.botName });
  });
});
