// Recording a channel end to end on the platform emulators (README, "Recording a channel"): in a
// channel whose policy has `history.record`, plain messages, thread replies, a mention, an edit
// and a deletion land in the channel log as they are, the bot's own answer marked; nothing that
// did not address the bot reaches the model; a channel without the policy is not recorded.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChannelLogEntry } from '../../src/store/index.ts';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';
import { llm } from '../emulators/llm/index.ts';
import { type SlackEmulator, startSlackEmulator } from '../emulators/slack/index.ts';
import { startTelegramEmulator, type TelegramEmulator } from '../emulators/telegram/index.ts';
import { waitUntil } from '../helpers.ts';
import { type E2E, startE2E } from './harness.ts';

const DAY = 24 * 3600_000;
const everything = { from: new Date(Date.now() - DAY).toISOString(), to: new Date(Date.now() + DAY).toISOString() };

/** The log as `[name, text, thread?, bot?]` rows, for assertions that read like the channel. */
const rows = (entries: ChannelLogEntry[], threadOf: (ts: string) => string = (t) => t) =>
  entries.map((e) => [e.bot ? 'BOT' : e.userName, e.text, ...(e.threadId ? [threadOf(e.threadId)] : [])]);

describe('slack: a recorded channel', () => {
  let emu: SlackEmulator;
  let bb: E2E;
  const C = 'C0OPS';
  before(async () => {
    emu = await startSlackEmulator({ delivery: 'socket' });
    emu.workspace.addUser('U0ADA', 'ada');
    emu.workspace.addUser('U0BOB', 'bob');
    bb = await startE2E(
      {
        channels: {
          slack: { apiUrl: emu.apiUrl, mode: 'socket', channels: { [C]: { history: { record: true, days: 30 } } } },
        },
      },
      { SLACK_BOT_TOKEN: emu.botToken, SLACK_APP_TOKEN: emu.appToken },
    );
  });
  after(async () => {
    await bb?.close();
    await emu?.close();
  });

  it('keeps messages, a thread, a mention and its answer, an edit, a deletion; answers the mention only', async () => {
    const channel = `slack:${emu.ids.teamId}:${C}`;
    const log = () => bb.app.store.channelLog.list(channel, everything);
    bb.llm.script([llm.say('Deploy is at five.')]);
    const plan = await emu.userSays({ channel: C, user: 'U0ADA', text: 'deploy at 4 today' });
    const reply = await emu.userSays({ channel: C, user: 'U0BOB', text: 'ok, I will watch it', threadTs: plan.ts });
    const oops = await emu.userSays({ channel: C, user: 'U0BOB', text: 'wrong channel, sorry' });
    await emu.userSays({ channel: 'C0ELSEWHERE', user: 'U0BOB', text: 'not recorded here' });
    const ask = await emu.userSays({ channel: C, user: 'U0ADA', text: 'when is the deploy?', mention: true });
    await waitUntil(() => emu.botMessages().some((m) => m.channel === C), 'the answer to the mention', 20_000);
    await emu.userEdits({ channel: C, ts: plan.ts, text: 'deploy at 5 today' });
    await emu.userDeletes({ channel: C, ts: oops.ts });
    const threads = new Map([
      [plan.ts, 'plan'],
      [ask.ts, 'ask'],
    ]);
    const want = [
      ['ada', 'deploy at 5 today'],
      ['bob', 'ok, I will watch it', 'plan'],
      ['ada', `@${emu.ids.botUserId} when is the deploy?`],
      ['BOT', 'Deploy is at five.', 'ask'],
    ];
    await waitUntil(
      async () => JSON.stringify(rows(await log(), (t) => threads.get(t) ?? t)) === JSON.stringify(want),
      'the channel log as the channel reads',
      20_000,
    );
    const entries = await log();
    assert.ok(entries[0]!.editedAt, 'the edit is marked');
    assert.equal(entries[1]!.messageId, reply.ts);
    assert.deepEqual(await bb.app.store.channelLog.channels(), [channel], 'the other channel is not recorded');
    assert.equal(bb.llm.requests.length, 1, 'only the mention reached the model');
  });
});

describe('discord: a recorded channel', () => {
  let emu: DiscordEmulator;
  let bb: E2E;
  let guildId = '';
  let channelId = '';
  before(async () => {
    emu = await startDiscordEmulator();
    const { guild, channel } = emu.addGuild('team', 'ops');
    guildId = guild.id;
    channelId = channel.id;
    bb = await startE2E(
      { channels: { discord: { restApi: emu.restApi, channels: { [channelId]: { history: { record: true } } } } } },
      { DISCORD_BOT_TOKEN: emu.token },
    );
  });
  after(async () => {
    await bb?.close();
    await emu?.close();
  });

  it('keeps messages, a thread, a mention and its answer, an edit, a deletion; answers the mention only', async () => {
    const channel = `discord:${guildId}:${channelId}`;
    const log = () => bb.app.store.channelLog.list(channel, everything);
    bb.llm.script([llm.say('Deploy is at five.')]);
    const ada = { userId: '2000000000000000001', userName: 'ada' };
    const bob = { userId: '2000000000000000002', userName: 'bob' };
    const plan = emu.userMessage({ channelId, content: 'deploy at 4 today', ...ada });
    const thread = emu.addThread(channelId, 'deploy');
    emu.userMessage({ channelId: thread.id, content: 'ok, I will watch it', ...bob });
    const oops = emu.userMessage({ channelId, content: 'wrong channel, sorry', ...bob });
    emu.userMessage({ channelId, content: 'when is the deploy?', mentionBot: true, ...ada });
    await waitUntil(() => emu.botMessages().some((m) => m.channel_id === channelId), 'the answer', 20_000);
    emu.userEdits(plan.id, 'deploy at 5 today');
    emu.userDeletes(oops.id);
    const want = [
      ['ada', 'deploy at 5 today'],
      ['bob', 'ok, I will watch it', 'thread'],
      ['ada', '@boxbot when is the deploy?'],
      ['BOT', 'Deploy is at five.'],
    ];
    await waitUntil(
      async () => JSON.stringify(rows(await log(), () => 'thread')) === JSON.stringify(want),
      'the channel log as the channel reads',
      20_000,
    );
    assert.ok((await log())[0]!.editedAt, 'the edit is marked');
    assert.equal(bb.llm.requests.length, 1, 'only the mention reached the model');
  });
});

describe('telegram: a recorded group', () => {
  let emu: TelegramEmulator;
  let bb: E2E;
  const group = { id: -100777, type: 'supergroup' as const, title: 'ops' };
  const ada = { id: 501, is_bot: false, first_name: 'Ada' };
  const bob = { id: 502, is_bot: false, first_name: 'Bob' };
  before(async () => {
    emu = await startTelegramEmulator();
    bb = await startE2E(
      {
        channels: { telegram: { apiRoot: emu.apiRoot, chats: { [String(group.id)]: { history: { record: true } } } } },
      },
      { TELEGRAM_BOT_TOKEN: emu.token },
    );
  });
  after(async () => {
    await bb?.close();
    await emu?.close();
  });

  it('keeps plain messages, a topic, a mention and the answer, and edits; only the mention is answered', async () => {
    const channel = `telegram:${group.id}`;
    const log = () => bb.app.store.channelLog.list(channel, everything);
    bb.llm.script([llm.say('Deploy is at five.')]);
    const plan = emu.userMessage({ chat: group, from: ada, text: 'deploy at 4 today' }).message as {
      message_id: number;
      date: number;
    };
    emu.userMessage({ chat: group, from: bob, text: 'ok, I will watch it', threadId: 9 });
    emu.userMessage({ chat: group, from: ada, text: `@${emu.bot.username} when is the deploy?` });
    await waitUntil(() => emu.botMessages(String(group.id)).length > 0, 'the answer', 20_000);
    emu.pushUpdate({ edited_message: { ...plan, text: 'deploy at 5 today', edit_date: plan.date + 60 } });
    const want = [
      ['Ada', 'deploy at 5 today'],
      ['Bob', 'ok, I will watch it', '9'],
      ['Ada', `@${emu.bot.username} when is the deploy?`],
      ['BOT', 'Deploy is at five.'],
    ];
    await waitUntil(
      async () => JSON.stringify(rows(await log())) === JSON.stringify(want),
      'the channel log as the group reads',
      20_000,
    );
    assert.equal(bb.llm.requests.length, 1, 'only the mention reached the model');
  });
});
