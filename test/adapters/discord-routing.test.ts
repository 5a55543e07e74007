// Discord routing and delivery against the emulator: mention gating in guilds, threads, DMs,
// bots ignored, replies into threads, markdown rendering, and REST failures surfaced unretried.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDiscordAdapter } from '../../src/adapters/discord/index.ts';
import { AdapterApiError, AdapterNetworkError, type InboundMessage } from '../../src/adapters/index.ts';
import { until } from './contract.ts';
import { type DiscordHarness, discordHarness } from './discord-harness.ts';

describe('discord routing', () => {
  let h: DiscordHarness;
  const got: InboundMessage[] = [];
  const next = async (what: string): Promise<InboundMessage> => {
    const n = got.length;
    await until(() => got.length > n, what);
    return got[n]!;
  };
  before(async () => {
    h = await discordHarness();
    await h.adapter.start(async (m) => {
      got.push(m);
    });
  });
  after(async () => {
    await h.adapter.stop();
    await h.close();
  });

  test('guild mention gating: plain, <@id>, <@!id>, a reply to the bot, and someone else mentioned', async () => {
    const { emu, channel } = h;
    emu.userMessage({ channelId: channel.id, content: 'just chatting' });
    let m = await next('plain message');
    assert.equal(m.mentionsBot, false);
    assert.equal(m.text, 'just chatting');

    emu.userMessage({ channelId: channel.id, content: `<@${emu.bot.id}> summarize the thread` });
    m = await next('mention');
    assert.deepEqual([m.mentionsBot, m.text], [true, 'summarize the thread']);

    emu.userMessage({ channelId: channel.id, content: `ok <@!${emu.bot.id}>, go` });
    m = await next('nickname mention');
    assert.deepEqual([m.mentionsBot, m.text], [true, 'ok, go']);

    const answer = await h.adapter.send({ conversationKey: m.conversationKey, chatId: channel.id }, 'Here you go.', {
      format: 'plain',
    });
    emu.userMessage({ channelId: channel.id, content: 'and more?', replyTo: answer.messageId, replyPing: false });
    m = await next('reply to the bot');
    assert.deepEqual([m.mentionsBot, m.text], [true, 'and more?']);

    emu.userMessage({ channelId: channel.id, userId: '5151', userName: 'grace', content: 'hi' });
    const grace = await next('grace');
    emu.userMessage({ channelId: channel.id, content: `<@${grace.userId}> lunch?` });
    m = await next('mention of another user');
    assert.deepEqual([m.mentionsBot, m.text], [false, '@grace lunch?']);
    for (const x of got) assert.equal(x.conversationKey, `discord:${h.guild.id}:${channel.id}`);
  });

  const threadsKnownLoginTitle =
    'threads: known at login, created later, or unknown to the cache all key under the parent; replies go into the ' +
    'thread';
  test(threadsKnownLoginTitle, async () => {
    const { emu, channel, guild } = h;
    // not dispatched: only a later GUILD_CREATE would list it
    const known = emu.world.addThread(channel.id, 'was there before login');
    const created = emu.addThread(channel.id, 'created while connected'); // THREAD_CREATE
    for (const thread of [created, known]) {
      emu.userMessage({ channelId: thread.id, content: 'in the thread', mentionBot: true });
      const m = await next(`message in ${thread.name}`);
      assert.equal(m.conversationKey, `discord:${guild.id}:${channel.id}:${thread.id}`);
      assert.equal(m.chatId, channel.id);
      assert.equal(m.threadId, thread.id);
      const sent = await h.adapter.send(
        { conversationKey: m.conversationKey, chatId: m.chatId, threadId: m.threadId!, replyToMessageId: m.messageId! },
        'threaded answer',
        { format: 'plain' },
      );
      const posted = emu.world.messages.get(sent.messageId)!;
      assert.equal(posted.channel_id, thread.id, 'the reply is posted in the thread, not the parent channel');
      assert.equal(posted.message_reference?.message_id, m.messageId);
      await h.adapter.edit(
        { conversationKey: m.conversationKey, chatId: m.chatId, threadId: m.threadId! },
        sent.messageId,
        'edited in the thread',
        { format: 'plain' },
      );
      assert.equal(emu.world.messages.get(sent.messageId)?.content, 'edited in the thread');
    }
    // The thread the cache did not know was looked up over REST.
    assert.ok(
      emu.requests.some((r) => r.method === 'GET' && r.path === `/api/v10/channels/${known.id}` && r.status === 200),
    );
  });

  test('a DM arrives under discord:dm:<channel> and the reply lands in that DM', async () => {
    h.emu.userMessage({ channelId: h.dm.id, content: 'psst' });
    const m = await next('dm');
    assert.equal(m.conversationKey, `discord:dm:${h.dm.id}`);
    assert.equal(m.isDirect, true);
    const sent = await h.adapter.send({ conversationKey: m.conversationKey, chatId: m.chatId }, 'hello', {
      format: 'plain',
    });
    assert.equal(h.emu.world.messages.get(sent.messageId)?.channel_id, h.dm.id);
  });

  test("the bot's own messages (echoed by the gateway) and other bots' messages never arrive", async () => {
    const before = got.length;
    await h.adapter.send({ conversationKey: '', chatId: h.channel.id }, `<@${h.emu.bot.id}> talking to myself`, {
      format: 'plain',
    });
    h.emu.userMessage({
      channelId: h.channel.id,
      userId: '7777',
      userName: 'otherbot',
      bot: true,
      content: 'beep',
      mentionBot: true,
    });
    h.emu.userMessage({ channelId: h.channel.id, content: 'marker' });
    await until(() => got.some((m) => m.text === 'marker'), 'the marker');
    assert.deepEqual(
      got.slice(before).map((m) => m.text),
      ['marker'],
    );
  });

  test('markdown is rendered for Discord; a rendering that would pass the limit is sent as written', async () => {
    const target = h.directTarget();
    const a = await h.adapter.send(target, 'this is __key__ || not a spoiler');
    assert.equal(h.emu.world.messages.get(a.messageId)?.content, 'this is **key** \\|\\| not a spoiler');
    const long = '||'.repeat(1000); // 2,000 characters; escaped it would be 4,000
    const b = await h.adapter.send(target, long);
    assert.equal(h.emu.world.messages.get(b.messageId)?.content, long);
  });

  const renderedMarkdownDiscordTitle =
    'rendered markdown Discord refuses with 400 goes once more as written; text that renders as itself is not retried';
  test(renderedMarkdownDiscordTitle, async () => {
    const target = h.directTarget();
    const posts = () => h.emu.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/messages'));
    let before = posts().length;
    h.emu.failNext(1, 400);
    const sent = await h.adapter.send(target, 'this is __key__');
    assert.deepEqual(
      posts()
        .slice(before)
        .map((r) => [r.status, (r.body as { content?: unknown }).content]),
      [
        [400, 'this is **key**'],
        [200, 'this is __key__'],
      ],
    );
    assert.equal(h.emu.world.messages.get(sent.messageId)?.content, 'this is __key__');
    before = posts().length;
    h.emu.failNext(1, 400);
    await assert.rejects(
      h.adapter.send(target, 'plain words'),
      (e: unknown) => e instanceof AdapterApiError && e.status === 400,
    );
    assert.equal(posts().length, before + 1);
  });

  test('429 on edit and typing surfaces at once with retryAfterMs, without a retry by the library', {
    timeout: 20_000,
  }, async () => {
    const target = h.directTarget();
    const sent = await h.adapter.send(target, 'draft', { format: 'plain' });
    // A 60 s retry-after: waiting it out inside the adapter would run past this test's timeout.
    h.emu.rateLimitNext(1, 60_000, { routes: ['edit'] });
    await assert.rejects(h.adapter.edit(target, sent.messageId, 'final', { format: 'plain' }), (e: unknown) => {
      assert.ok(e instanceof AdapterApiError);
      assert.deepEqual([e.status, e.retryable, e.retryAfterMs], [429, true, 60_000]);
      return true;
    });
    h.emu.rateLimitNext(1, 2_500, { routes: ['typing'], global: true });
    await assert.rejects(h.adapter.typing(target), (e: unknown) => {
      assert.ok(e instanceof AdapterApiError);
      assert.deepEqual([e.status, e.retryAfterMs], [429, 2_500]);
      assert.match(e.message, /global/);
      return true;
    });
    const edits = h.emu.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith(`/messages/${sent.messageId}`));
    assert.deepEqual(
      edits.map((r) => r.status),
      [429],
      'one attempt, no silent retry',
    );
    assert.equal(h.emu.world.messages.get(sent.messageId)?.content, 'draft');
  });

  const t5xxRetryableAdapterapierrorTitle =
    'a 5xx is a retryable AdapterApiError after one attempt; an unreachable API is an AdapterNetworkError';
  test(t5xxRetryableAdapterapierrorTitle, async () => {
    const target = h.directTarget();
    const before = h.emu.requests.length;
    h.emu.failNext(1, 502);
    await assert.rejects(
      h.adapter.send(target, 'x', { format: 'plain' }),
      (e: unknown) => e instanceof AdapterApiError && e.status === 502 && e.retryable,
    );
    assert.equal(h.emu.requests.length, before + 1);

    const offline = createDiscordAdapter({
      token: h.emu.token,
      restApi: 'http://127.0.0.1:9/api',
      requestTimeoutMs: 5_000,
    });
    await assert.rejects(offline.send(target, 'x'), (e: unknown) => e instanceof AdapterNetworkError && e.retryable);
  });

  test('a refused message (over the length limit) says why', async () => {
    await assert.rejects(h.adapter.send(h.directTarget(), 'y'.repeat(2001), { format: 'plain' }), (e: unknown) => {
      assert.ok(e instanceof AdapterApiError);
      assert.equal(e.status, 400);
      assert.equal(e.retryable, false);
      assert.match(e.message, /content: Must be 2000 or fewer in length/);
      return true;
    });
  });
});

test('with allowBots, other bots are delivered (the bot itself still is not)', async () => {
  const h = await discordHarness({ adapter: { allowBots: true } });
  const got: InboundMessage[] = [];
  await h.adapter.start(async (m) => {
    got.push(m);
  });
  try {
    await h.adapter.send(h.directTarget(), 'from me', { format: 'plain' });
    h.emu.userMessage({ channelId: h.channel.id, userId: '7777', userName: 'otherbot', bot: true, content: 'beep' });
    await until(() => got.length === 1, 'the bot message');
    assert.equal(got[0]!.text, 'beep');
    assert.equal(got[0]!.userId, '7777');
  } finally {
    await h.adapter.stop();
    await h.close();
  }
});
