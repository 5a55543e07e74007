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
    emu.workspace.addUser('U0CAROL', 'carol');
    // Said before boxbot ran: only a backfill from the channel's history can know it.
    const early = emu.workspace.nextTs();
    emu.workspace.add({ channel: C, ts: early, user: 'U0CAROL', text: 'posted before boxbot started', edits: 0 });
    const reply = { channel: C, ts: emu.workspace.nextTs(), threadTs: early, user: 'U0ADA', text: 'seen it', edits: 0 };
    emu.workspace.add(reply);
    bb = await startE2E(
      {
        channels: {
          slack: {
            apiUrl: emu.apiUrl,
            mode: 'socket',
            channels: { [C]: { history: { record: true, days: 30 } }, C0BIG: { history: { record: true } } },
          },
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
    await emu.userSays({ channel: C, user: 'U0CIBOT', botId: 'B0CI', text: 'CI: build 812 passed' });
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
      ['BOT', 'CI: build 812 passed'],
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

  it('a /daily-digest job reads the log, backfilled before recording began, and posts top level once', async () => {
    const channel = `slack:${emu.ids.teamId}:${C}`;
    bb.llm.script([llm.say('*Headline:* the deploy moved to five.')]);
    const job = await bb.app.scheduler.add({
      name: 'ops digest',
      cron: '0 9 * * *',
      timezone: 'Europe/Paris',
      prompt: '/daily-digest',
      target: channel,
    });
    const before = bb.llm.requests.length;
    // The backfill's read of the early thread is told to wait: it waits in the outbound queue, then reads.
    emu.rateLimitNext(1, 1, ['conversations.replies']);
    const limited = () => bb.app.gateway.metrics.rateLimited.get({ platform: 'slack' });
    const limitedBefore = limited();
    const report = await (await bb.app.scheduler.runNow(job.id)).done;
    assert.equal(report.failed, false, report.text);
    assert.equal(limited() - limitedBefore, 1, 'the 429 went through the bot’s outbound queue');
    assert.equal(bb.llm.requests.length, before + 1, 'one model call: the history fits');
    const sent = JSON.stringify(bb.llm.requests.at(-1)!.body);
    const lines = [...sent.matchAll(/\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [^\]]+\] [^\\]+/g)].map((m) => m[0]);
    assert.deepEqual(
      lines.map((l) => l.replace(/^\[[^\]]+\] /, '')),
      [
        'carol: posted before boxbot started',
        'ada: seen it',
        'ada: deploy at 5 today (edited)',
        'bob: ok, I will watch it',
        'otherbot (bot): CI: build 812 passed',
        `ada: @${emu.ids.botUserId} when is the deploy?`,
        `${emu.ids.botName} (bot): Deploy is at five.`,
      ],
    );
    assert.match(sent, /deploy at 5 today \(edited\)\\n {2}↳ \[/, 'the reply is shown under its thread');
    assert.doesNotMatch(sent, /wrong channel|not recorded here/);
    await waitUntil(
      () => emu.botMessages().some((m) => m.text.includes('the deploy moved to five')),
      'the digest posted',
      20_000,
    );
    const posted = emu.botMessages().filter((m) => m.text.includes('the deploy moved to five'));
    assert.equal(posted.length, 1, 'posted once');
    assert.equal(posted[0]!.channel, C);
    assert.equal(posted[0]!.threadTs, undefined, 'top level, not in a thread');
    const [entry] = await bb.app.scheduler.logs(job.id);
    assert.deepEqual(entry!.digest && { messages: entry!.digest.messages, chunks: entry!.digest.chunks }, {
      messages: 7,
      chunks: 0,
    });
  });

  it('a week of 5,000 messages is summarised in parts, then digested; the run log has the budget', async () => {
    const big = `slack:${emu.ids.teamId}:C0BIG`;
    const now = Date.now();
    const week = 7 * DAY;
    const entries: ChannelLogEntry[] = Array.from({ length: 5000 }, (_, i) => ({
      channel: big,
      messageId: `${Math.floor((now - week + 60_000 + i * 120_000) / 1000)}.${String(i).padStart(6, '0')}`,
      at: new Date(now - week + 60_000 + i * 120_000).toISOString(),
      userId: `U${i % 7}`,
      userName: `person${i % 7}`,
      text: `note m${String(i).padStart(4, '0')}: the build on branch release-${i % 40} looked fine to me today`,
    }));
    await bb.app.store.channelLog.put(entries);
    const seen: string[] = [];
    bb.llm.respond((req) => {
      const body = JSON.stringify(req.body);
      seen.push(body);
      return body.includes('Summarise this part') ? llm.say(`part summary ${seen.length}`) : llm.say('Weekly digest.');
    });
    const job = await bb.app.scheduler.add({
      name: 'big digest',
      cron: '0 9 * * 1',
      prompt: '/daily-digest the last week',
      target: big,
    });
    const report = await (await bb.app.scheduler.runNow(job.id)).done;
    bb.llm.respond(undefined);
    assert.equal(report.failed, false, report.text);
    assert.equal(report.text, 'Weekly digest.');
    const parts = seen.filter((b) => b.includes('Summarise this part'));
    assert.ok(parts.length >= 2, `summarised in ${parts.length} parts`);
    assert.equal(seen.length, parts.length + 1, 'the parts, then the digest');
    for (let i = 0; i < 5000; i += 499) {
      const id = `m${String(i).padStart(4, '0')}:`;
      assert.equal(parts.filter((b) => b.includes(id)).length, 1, `${id} in exactly one part`);
    }
    const final = seen.at(-1)!;
    assert.match(final, /the last week/);
    for (let p = 1; p <= parts.length; p++) assert.match(final, new RegExp(`part summary ${p}\\b`));
    assert.doesNotMatch(final, /note m0001:/, 'the digest reads the summaries, not the messages');
    const [entry] = await bb.app.scheduler.logs(job.id);
    assert.equal(entry!.digest!.messages, 5000);
    assert.equal(entry!.digest!.chunks, parts.length);
    assert.ok(entry!.digest!.tokenBudget > 0 && entry!.digest!.historyTokens > entry!.digest!.tokenBudget);
    assert.ok(entry!.costUsd > 0 && entry!.usage.inputTokens > 0, 'the parts and the digest are charged');
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
    // Posted before boxbot ran: only a backfill from the channel's history can know it.
    emu.userMessage({
      channelId,
      content: 'posted before boxbot started',
      userId: '2000000000000000003',
      userName: 'carol',
    });
    // A thread still active, said in before boxbot ran: only GET /guilds/{id}/threads/active finds it.
    const early = emu.addThread(channelId, 'rollback plan');
    emu.userMessage({
      channelId: early.id,
      content: 'rollback is a revert of the tag',
      userId: '2000000000000000003',
      userName: 'carol',
    });
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
    // Another bot's message is kept, marked as a bot's, and never answered.
    emu.userMessage({
      channelId,
      content: 'CI: build 812 passed',
      userId: '2000000000000000009',
      userName: 'ci',
      bot: true,
    });
    emu.userMessage({ channelId, content: 'when is the deploy?', mentionBot: true, ...ada });
    await waitUntil(() => emu.botMessages().some((m) => m.channel_id === channelId), 'the answer', 20_000);
    emu.userEdits(plan.id, 'deploy at 5 today');
    emu.userDeletes(oops.id);
    const want = [
      ['ada', 'deploy at 5 today'],
      ['bob', 'ok, I will watch it', 'thread'],
      ['BOT', 'CI: build 812 passed'],
      ['ada', '@boxbot when is the deploy?'],
      ['BOT', 'Deploy is at five.'],
    ];
    await waitUntil(
      async () => JSON.stringify(rows(await log(), () => 'thread')) === JSON.stringify(want),
      'the channel log as the channel reads',
      20_000,
    );
    assert.ok((await log())[0]!.editedAt, 'the edit is marked');
    assert.equal((await log())[2]!.userName, 'ci', 'the other bot under its own name');
    assert.equal(bb.llm.requests.length, 1, 'only the mention reached the model');
    assert.equal(emu.botMessages().filter((m) => m.channel_id === channelId).length, 1, 'the bot answered once');
  });

  it('a {{history}} job reads the log, backfilled before recording began, and posts once at top level', async () => {
    bb.llm.script([llm.say('Digest: the deploy moved to five.')]);
    // The backfill's first history read is told to wait: it waits, through the outbound queue, and reads on.
    emu.rateLimitNext(1, 300, { routes: ['history'] });
    const before = emu.requests.length;
    const limited = () => bb.app.gateway.metrics.rateLimited.get({ platform: 'discord' });
    const limitedBefore = limited();
    const job = await bb.app.scheduler.add({
      name: 'ops digest',
      cron: '0 9 * * *',
      prompt: 'Write a digest of these messages:\n{{history}}',
      target: `discord:${guildId}:${channelId}`,
    });
    const report = await (await bb.app.scheduler.runNow(job.id)).done;
    assert.equal(report.failed, false, report.text);
    const sent = JSON.stringify(bb.llm.requests.at(-1)!.body);
    const lines = [...sent.matchAll(/\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [^\]]+\] [^\\"]+/g)].map((m) => m[0]);
    // Oldest first, each thread under its first message (or a note when that is not in the log).
    assert.deepEqual(
      lines.map((l) => l.replace(/^\[[^\]]+\] /, '')),
      [
        'carol: posted before boxbot started',
        'carol: rollback is a revert of the tag',
        'ada: deploy at 5 today (edited)',
        'bob: ok, I will watch it',
        'ci (bot): CI: build 812 passed',
        'ada: @boxbot when is the deploy?',
        'boxbot (bot): Deploy is at five.',
      ],
    );
    assert.doesNotMatch(sent, /wrong channel/);
    const reads = emu.requests
      .slice(before)
      .filter((r) => r.method === 'GET' && /\/messages$|\/threads\/active$/.test(r.path));
    assert.equal(reads[0]?.status, 429, 'the first read was told to wait');
    assert.equal(limited() - limitedBefore, 1, 'the 429 paused the bot’s outbound queue');
    assert.ok(reads.slice(1).every((r) => r.status === 200) && reads.length > 2, 'then every read went through');
    assert.ok(
      reads.some((r) => r.path.endsWith('/threads/active')),
      'the active threads were read',
    );
    assert.ok(
      (await bb.app.store.channelLog.list(`discord:${guildId}:${channelId}`, everything)).some(
        (e) => e.text === 'rollback is a revert of the tag' && e.threadId !== undefined,
      ),
      'the early thread is in the log, as a thread',
    );
    await waitUntil(
      () => emu.botMessages().some((m) => m.content.includes('moved to five')),
      'the digest posted',
      20_000,
    );
    const posted = emu.botMessages().filter((m) => m.content.includes('moved to five'));
    assert.equal(posted.length, 1, 'posted once');
    assert.equal(posted[0]!.channel_id, channelId, 'in the channel itself');
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

  it('a /daily-digest job reads the log and posts once in the group, replying to nobody', async () => {
    bb.llm.script([llm.say('Digest: the deploy moved to five.')]);
    const job = await bb.app.scheduler.add({
      name: 'ops digest',
      cron: '0 9 * * *',
      prompt: '/daily-digest',
      target: `telegram:${group.id}`,
    });
    const report = await (await bb.app.scheduler.runNow(job.id)).done;
    assert.equal(report.failed, false, report.text);
    const sent = JSON.stringify(bb.llm.requests.at(-1)!.body);
    for (const said of ['Ada: deploy at 5 today (edited)', 'Bob: ok, I will watch it', '(bot): Deploy is at five.'])
      assert.ok(sent.includes(said), said);
    await waitUntil(
      () => emu.botMessages(String(group.id)).some((m) => m.text.includes('moved to five')),
      'the digest posted',
      20_000,
    );
    const posted = emu.botMessages(String(group.id)).filter((m) => m.text.includes('moved to five'));
    assert.equal(posted.length, 1, 'posted once');
    assert.equal(posted[0]!.replyTo, undefined, 'not a reply');
    assert.equal(posted[0]!.threadId, undefined, 'not in a topic');
  });

  it('a digest run right after an answer reads that answer', async () => {
    bb.llm.script([llm.say('The freeze ends at noon.'), llm.say('Digest: the freeze ends at noon.')]);
    emu.userMessage({ chat: group, from: bob, text: `@${emu.bot.username} when does the freeze end?` });
    await waitUntil(
      () => emu.botMessages(String(group.id)).some((m) => m.text.includes('The freeze ends at noon.')),
      'the answer',
      20_000,
    );
    await bb.app.gateway.idle();
    const job = await bb.app.scheduler.add({
      name: 'right after',
      cron: '0 9 * * *',
      prompt: '/daily-digest',
      target: `telegram:${group.id}`,
    });
    const report = await (await bb.app.scheduler.runNow(job.id)).done;
    assert.equal(report.failed, false, report.text);
    assert.ok(JSON.stringify(bb.llm.requests.at(-1)!.body).includes('(bot): The freeze ends at noon.'));
  });
});
