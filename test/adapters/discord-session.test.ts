// The Discord gateway session across restarts, with the real discord.js against the emulator:
// a restart RESUMEs and Discord's replay brings what was posted while the bot was down; a
// session that cannot be resumed is caught up from each channel's history; each message reaches
// the sink once, in order, through RESUMEs, socket drops and a storm of 429s.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { test } from 'node:test';
import { createDiscordAdapter } from '../../src/adapters/discord/index.ts';
import type { AdapterState, ChannelAdapter, InboundMessage } from '../../src/adapters/index.ts';
import { until } from './contract.ts';
import { type DiscordHarness, discordHarness } from './discord-harness.ts';

/** The store's kv as the adapter sees it (values go through JSON, as they do on disk). */
function memoryState(): AdapterState & { values: Map<string, string> } {
  const values = new Map<string, string>();
  return {
    values,
    get: async (k) => (values.has(k) ? JSON.parse(values.get(k)!) : undefined),
    set: async (k, v) => void values.set(k, JSON.stringify(v)),
  };
}

interface Run {
  adapter: ChannelAdapter;
  got: InboundMessage[];
}

/** A bot process: an adapter on the shared state whose sink records what it accepts. */
async function run(h: DiscordHarness, state: AdapterState, sink?: (m: InboundMessage) => Promise<void>): Promise<Run> {
  const adapter = createDiscordAdapter({ token: h.emu.token, restApi: h.emu.restApi, state });
  const got: InboundMessage[] = [];
  await adapter.start(
    sink ??
      (async (m) => {
        got.push(m);
      }),
  );
  return { adapter, got };
}

/** What a gateway's dedupe makes of deliveries: each message id once, in arrival order. */
const texts = (got: InboundMessage[]): string[] => {
  const seen = new Set<string>();
  return got.filter((m) => !seen.has(m.id) && seen.add(m.id)).map((m) => m.text);
};

test('a restart RESUMEs the saved session: what was posted while down arrives once, in order', async () => {
  const h = await discordHarness();
  const state = memoryState();
  try {
    const first = await run(h, state);
    h.emu.userMessage({ channelId: h.dm.id, content: 'before' });
    await until(() => first.got.length === 1, 'the first message');
    await first.adapter.stop();
    for (const text of ['down 1', 'down 2', 'down 3']) h.emu.userMessage({ channelId: h.dm.id, content: text });
    h.emu.userMessage({ channelId: h.channel.id, content: 'in the guild', mentionBot: true });

    const second = await run(h, state);
    await until(() => second.got.length >= 4, 'the replayed messages');
    assert.equal(h.emu.gateway.identifies.length, 1, 'resumed, not identified again');
    assert.equal(h.emu.gateway.resumes, 1);
    // Order holds within a channel; channels are delivered in parallel.
    const dm = second.got.filter((m) => m.conversationKey === `discord:dm:${h.dm.id}`);
    assert.deepEqual(
      dm.map((m) => m.text),
      ['down 1', 'down 2', 'down 3'],
    );
    const guild = second.got.filter((m) => m.conversationKey === `discord:${h.guild.id}:${h.channel.id}`);
    assert.deepEqual(
      guild.map((m) => [m.text, m.mentionsBot]),
      [['in the guild', true]],
    );
    // The resumed bot knows who it is without READY, and answers.
    assert.deepEqual(second.adapter.identity(), { id: h.emu.bot.id, name: 'boxbot' });
    await second.adapter.send(h.directTarget(), 'back', { format: 'plain' });
    assert.equal(h.emu.botMessages().at(-1)?.content, 'back');
    h.emu.userMessage({ channelId: h.dm.id, content: 'live again' });
    await until(() => second.got.length === 5, 'a live message after the resume');
    await second.adapter.stop();
  } finally {
    await h.close();
  }
});

test("after a resumed start (no READY, no guilds) mentioning the bot's role still mentions the bot", async () => {
  const h = await discordHarness();
  const state = memoryState();
  try {
    const first = await run(h, state);
    await first.adapter.stop();
    h.emu.userMessage({ channelId: h.channel.id, content: `<@&${h.guild.botRoleId}> while down` });
    const second = await run(h, state);
    h.emu.userMessage({ channelId: h.channel.id, content: `<@&${h.guild.botRoleId}> live` });
    await until(() => second.got.length === 2, 'both role mentions');
    assert.equal(h.emu.gateway.resumes, 1);
    assert.deepEqual(
      second.got.map((m) => [m.text, m.mentionsBot]),
      [
        ['while down', true],
        ['live', true],
      ],
    );
    await second.adapter.stop();
  } finally {
    await h.close();
  }
});

test('a message the sink had not accepted when the bot stopped is replayed by the next RESUME', async () => {
  const h = await discordHarness();
  const state = memoryState();
  try {
    const accepted: string[] = [];
    let stuck = false;
    const first = await run(h, state, async (m) => {
      if (m.text === 'stuck') {
        stuck = true;
        return new Promise(() => undefined); // the process dies before the store took it
      }
      accepted.push(m.text);
    });
    h.emu.userMessage({ channelId: h.dm.id, content: 'taken' });
    await until(() => accepted.length === 1, 'the first message');
    h.emu.userMessage({ channelId: h.dm.id, content: 'stuck' });
    h.emu.userMessage({ channelId: h.channel.id, content: 'other channel', mentionBot: true });
    await until(() => stuck && accepted.length === 2, 'both dispatches handled or stuck');
    await first.adapter.stop();

    const second = await run(h, state);
    await until(() => second.got.some((m) => m.text === 'stuck'), 'the unaccepted message again');
    assert.equal(h.emu.gateway.resumes, 1);
    assert.ok(texts(second.got).includes('stuck'));
    await second.adapter.stop();
  } finally {
    await h.close();
  }
});

test('a session that cannot be resumed is caught up from channel history, once and in order', async () => {
  const h = await discordHarness();
  const state = memoryState();
  try {
    const first = await run(h, state);
    h.emu.userMessage({ channelId: h.dm.id, content: 'dm before' });
    h.emu.userMessage({ channelId: h.channel.id, content: 'guild before', mentionBot: true });
    await until(() => first.got.length === 2, 'the first messages');
    await first.adapter.stop();
    for (let i = 1; i <= 3; i++) h.emu.userMessage({ channelId: h.dm.id, content: `dm missed ${i}` });
    h.emu.userMessage({ channelId: h.channel.id, content: 'guild missed', mentionBot: true });
    h.emu.userMessage({ channelId: h.channel.id, content: 'from a bot', userId: '5555', bot: true });
    assert.equal(h.emu.gateway.expireSessions(), 1);

    const second = await run(h, state);
    await until(() => second.got.length >= 4, 'the missed messages from history');
    h.emu.userMessage({ channelId: h.dm.id, content: 'live' });
    await until(() => second.got.some((m) => m.text === 'live'), 'a live message');
    assert.equal(h.emu.gateway.invalidSessions, 1, 'the saved session was tried and refused');
    assert.equal(h.emu.gateway.identifies.length, 2);
    const dm = second.got.filter((m) => m.conversationKey === `discord:dm:${h.dm.id}`);
    assert.deepEqual(texts(dm), ['dm missed 1', 'dm missed 2', 'dm missed 3', 'live']);
    const guild = second.got.filter((m) => m.conversationKey === `discord:${h.guild.id}:${h.channel.id}`);
    assert.deepEqual(texts(guild), ['guild missed']);
    assert.equal(guild[0]!.mentionsBot, true);
    assert.ok(
      h.emu.requests.some((r) => r.method === 'GET' && r.path === `/api/v10/channels/${h.dm.id}/messages`),
      'read through the history API',
    );
    await second.adapter.stop();
  } finally {
    await h.close();
  }
});

test('catching up waits out a storm of 429s on the history API and pages through long gaps', async () => {
  const h = await discordHarness();
  const state = memoryState();
  try {
    const first = await run(h, state);
    h.emu.userMessage({ channelId: h.dm.id, content: 'seen' });
    await until(() => first.got.length === 1, 'the first message');
    await first.adapter.stop();
    const missed = Array.from({ length: 230 }, (_, i) => `missed ${i + 1}`);
    for (const text of missed) h.emu.userMessage({ channelId: h.dm.id, content: text });
    h.emu.gateway.expireSessions();
    h.emu.rateLimitNext(6, 20, { routes: ['history'] });

    const second = await run(h, state);
    await until(() => second.got.length >= missed.length, 'every missed message', 20_000);
    assert.deepEqual(texts(second.got), missed);
    const reads = h.emu.requests.filter((r) => r.path === `/api/v10/channels/${h.dm.id}/messages`);
    assert.equal(reads.filter((r) => r.status === 429).length, 6);
    assert.equal(reads.filter((r) => r.status === 200).length, 3, 'three pages of at most 100');
    await second.adapter.stop();
  } finally {
    await h.close();
  }
});

test('a socket drop mid-run resumes and saves the new sequence; the next restart resumes from it', async () => {
  const h = await discordHarness();
  const state = memoryState();
  try {
    const first = await run(h, state);
    h.emu.userMessage({ channelId: h.dm.id, content: 'one' });
    await until(() => first.got.length === 1, 'the first message');
    h.emu.gateway.disconnectAll(4000);
    h.emu.userMessage({ channelId: h.dm.id, content: 'two (while the socket was down)' });
    await until(() => h.emu.gateway.resumes === 1, 'the resume after the drop');
    h.emu.userMessage({ channelId: h.dm.id, content: 'three' });
    await until(() => first.got.length === 3, 'the messages after the drop');
    await first.adapter.stop();
    h.emu.userMessage({ channelId: h.dm.id, content: 'four (while stopped)' });

    const second = await run(h, state);
    await until(() => second.got.length >= 1, 'the replay');
    assert.equal(h.emu.gateway.resumes, 2);
    assert.equal(h.emu.gateway.identifies.length, 1);
    assert.deepEqual(texts(second.got), ['four (while stopped)'], 'nothing accepted before is replayed');
    await second.adapter.stop();
  } finally {
    await h.close();
  }
});

test('a saved session whose resume URL never answers is dropped: the start identifies anew', async () => {
  const h = await discordHarness();
  const state = memoryState();
  // Takes connections and never answers (not even the WebSocket handshake).
  const silent = createServer(() => undefined);
  const sockets = new Set<Socket>();
  silent.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = silent.address() as AddressInfo;
    await state.set('discord.session', {
      sessionId: 'gone',
      sequence: 42,
      resumeURL: `ws://127.0.0.1:${port}/gateway`,
      shardId: 0,
      shardCount: 1,
    });
    const adapter = createDiscordAdapter({ token: h.emu.token, restApi: h.emu.restApi, state, readyTimeoutMs: 3000 });
    const got: InboundMessage[] = [];
    await adapter.start(async (m) => void got.push(m));
    assert.equal(h.emu.gateway.identifies.length, 1);
    h.emu.userMessage({ channelId: h.dm.id, content: 'hello' });
    await until(() => got.length === 1, 'a message on the new session');
    await adapter.stop();
    const saved = (await state.get('discord.session')) as { sessionId?: string } | null;
    assert.notEqual(saved?.sessionId, 'gone', 'the new session is saved in its place');
  } finally {
    for (const socket of sockets) socket.destroy();
    silent.close();
    await h.close();
  }
});

test('without saved state a restart identifies anew (nothing is written anywhere)', async () => {
  const h = await discordHarness();
  try {
    await h.adapter.start(async () => undefined);
    await h.adapter.stop();
    await h.adapter.start(async () => undefined);
    assert.equal(h.emu.gateway.identifies.length, 2);
    assert.equal(h.emu.gateway.resumes, 0);
    await h.adapter.stop();
  } finally {
    await h.close();
  }
});

test('a gateway that never answers the close: stop ends the socket, and the next start resumes', async () => {
  const h = await discordHarness();
  const state = memoryState();
  try {
    // A short wait for the answer, so the test does not wait out a long one; the default is 5 s.
    const adapter = createDiscordAdapter({ token: h.emu.token, restApi: h.emu.restApi, state, closeTimeoutMs: 200 });
    await adapter.start(async () => {});
    h.emu.gateway.stopReading();
    let stopped = false;
    const stopping = adapter.stop().then(() => {
      stopped = true;
    });
    // Without the cut, the WebSocket library gives up on the close after 30 s: the ceiling only ends a hang.
    await until(() => stopped, 'the stop', 15_000);
    await stopping;
    h.emu.gateway.resumeReading();
    h.emu.userMessage({ channelId: h.dm.id, content: 'while down' });
    const second = await run(h, state);
    await until(() => second.got.length === 1, 'the replayed message');
    assert.equal(second.got[0]?.text, 'while down');
    assert.equal(h.emu.gateway.identifies.length, 1, 'resumed, not identified again');
    await second.adapter.stop();
  } finally {
    await h.close();
  }
});
