// Discord gateway behaviour with the real discord.js against the emulator: the login
// handshake, heartbeats, malformed dispatches, and reconnecting after the socket drops.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdapterApiError, AdapterError, type InboundMessage } from '../../src/adapters/index.ts';
import { Intent } from '../emulators/discord/index.ts';
import { until } from './contract.ts';
import { type DiscordHarness, discordHarness } from './discord-harness.ts';

async function started(
  opts: Parameters<typeof discordHarness>[0] = {},
): Promise<{ h: DiscordHarness; got: InboundMessage[] }> {
  const h = await discordHarness(opts);
  const got: InboundMessage[] = [];
  await h.adapter.start(async (m) => {
    got.push(m);
  });
  return { h, got };
}

async function done(h: DiscordHarness): Promise<void> {
  await h.adapter.stop();
  await h.close();
}

test('login: GET /gateway/bot with the bot token, then IDENTIFY with the token and the needed intents', async () => {
  const { h } = await started();
  try {
    const gatewayBot = h.emu.requests.find((r) => r.path === '/api/v10/gateway/bot');
    assert.equal(gatewayBot?.status, 200);
    assert.equal(h.emu.gateway.connects[0]?.path, '/gateway');
    assert.equal(h.emu.gateway.connects[0]?.query.get('v'), '10');
    assert.equal(h.emu.gateway.connects[0]?.query.get('encoding'), 'json');
    assert.equal(h.emu.gateway.identifies.length, 1);
    const identify = h.emu.gateway.identifies[0]!;
    assert.equal(identify.token, h.emu.token);
    assert.equal(
      identify.intents,
      Intent.Guilds | Intent.GuildMessages | Intent.DirectMessages | Intent.MessageContent,
    );
    assert.deepEqual(identify.shard, [0, 1]);
    assert.deepEqual(h.adapter.identity(), { id: h.emu.bot.id, name: 'boxbot' });
  } finally {
    await done(h);
  }
});

test('a wrong token is refused at login with an error naming DISCORD_BOT_TOKEN', async () => {
  const h = await discordHarness({ adapter: { token: 'not-the-token' } });
  try {
    await assert.rejects(
      h.adapter.start(async () => undefined),
      (e: unknown) => {
        assert.ok(e instanceof AdapterApiError, String(e));
        assert.equal(e.status, 401);
        assert.match(e.message, /DISCORD_BOT_TOKEN/);
        return true;
      },
    );
    assert.equal(h.emu.gateway.identifies.length, 0);
    assert.equal(h.emu.requests.at(-1)?.status, 401);
  } finally {
    await h.close();
  }
});

test('without the Message Content intent switched on, login fails and says where to switch it on', async () => {
  const h = await discordHarness({ emulator: { enabledPrivilegedIntents: 0 } });
  try {
    await assert.rejects(
      h.adapter.start(async () => undefined),
      (e: unknown) => {
        assert.ok(e instanceof AdapterError, String(e));
        assert.equal(e.code, 'disallowed-intents');
        assert.match(e.message, /Developer Portal/);
        return true;
      },
    );
    assert.deepEqual(h.emu.gateway.closeCodes, [4014]);
  } finally {
    await h.close();
  }
});

const heartbeatsAckedConnectionTitle =
  'heartbeats are ACKed and the connection stays; unACKed heartbeats make discord.js resume on a new socket';
test(heartbeatsAckedConnectionTitle, async () => {
  // Short enough for a quick test, long enough that a busy machine does not delay an ACK past
  // the next heartbeat (which discord.js would take for a zombie connection): an event loop stalled
  // past it runs the heartbeat timer before it reads the ACK that came meanwhile (300 ms was short).
  const { h, got } = await started({ emulator: { heartbeatIntervalMs: 1000 } });
  try {
    await until(() => h.emu.gateway.heartbeatAcks >= 3, 'three heartbeat ACKs', 30_000);
    assert.equal(h.emu.gateway.connects.length, 1, 'ACKed heartbeats keep the first connection');
    h.emu.gateway.ackHeartbeats = false;
    await until(() => h.emu.gateway.resumes === 1, 'a resume after missing ACKs', 30_000);
    h.emu.gateway.ackHeartbeats = true;
    assert.equal(h.emu.gateway.connects.at(-1)?.path, '/gateway-resume');
    assert.equal(h.emu.gateway.identifies.length, 1, 'resumed, not re-identified');
    await h.userSays({ text: 'still here?', direct: true });
    await until(() => got.some((m) => m.text === 'still here?'), 'a message after the resume');
  } finally {
    await done(h);
  }
});

test('malformed dispatches are dropped and the same connection keeps delivering', async () => {
  const { h, got } = await started();
  try {
    const g = h.emu.gateway;
    g.sendDispatch('MESSAGE_CREATE', null); // discord.js's own handler throws on this one
    g.sendDispatch('MESSAGE_CREATE', {});
    g.sendDispatch('MESSAGE_CREATE', { id: '1', channel_id: h.dm.id, author: 'ada', content: 'x' });
    g.sendDispatch('MESSAGE_CREATE', {
      id: '2',
      channel_id: h.channel.id,
      guild_id: h.guild.id,
      author: { id: '4242' },
      content: ['x'],
    });
    g.sendDispatch('MESSAGE_UPDATE', null);
    g.sendDispatch('THREAD_CREATE', null);
    g.sendDispatch('SOMETHING_NEW', { weird: true });
    g.sendRaw('{"op": 0, "t": "MESSAGE_CREATE", "d": {');
    g.sendRaw('[]');
    await h.userSays({ text: 'after the junk', direct: true });
    await until(() => got.length > 0, 'the good message');
    assert.deepEqual(
      got.map((m) => m.text),
      ['after the junk'],
    );
    assert.equal(g.connects.length, 1);
    assert.equal(g.identifies.length, 1);
  } finally {
    await done(h);
  }
});

const gatewayDropsSocketTitle =
  'after the gateway drops the socket, discord.js resumes: missed and later messages arrive once, in order';
test(gatewayDropsSocketTitle, async () => {
  const { h, got } = await started();
  try {
    await h.userSays({ text: 'one', direct: true });
    await until(() => got.length === 1, 'the first message');
    h.emu.gateway.disconnectAll(4000);
    await h.userSays({ text: 'two (sent while disconnected)', direct: true });
    await until(() => h.emu.gateway.resumes === 1, 'the resume');
    await h.userSays({ text: 'three', direct: true });
    await until(() => got.length >= 3, 'the messages after the drop');
    assert.deepEqual(
      got.map((m) => m.text),
      ['one', 'two (sent while disconnected)', 'three'],
    );
    assert.equal(h.emu.gateway.identifies.length, 1);
    // Replies still go out after the reconnect.
    await h.adapter.send(h.directTarget(), 'welcome back', { format: 'plain' });
    assert.equal(h.emu.botMessages().at(-1)?.content, 'welcome back');
  } finally {
    await done(h);
  }
});
