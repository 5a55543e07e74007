// The channel log's backfill of a Discord channel (readGuildHistory) against the emulator: the
// channel, its active threads and its archived public threads, paged with `before` while
// `has_more`, up to the first archived before the period began; every request through the pacer;
// a thread Discord refuses is left out and said, not the end of the backfill.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ChannelEvent } from '../../src/adapters/channel-event.ts';
import { readGuildHistory } from '../../src/adapters/discord/channel-history.ts';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';

let emu: DiscordEmulator;
before(async () => {
  emu = await startDiscordEmulator();
});
after(async () => {
  await emu?.close();
});

test('archived threads are read back page by page, down to the first archived before the period', async () => {
  const { guild, channel } = emu.addGuild('team', 'ops');
  const carol = { userId: '2000000000000000003', userName: 'carol' };
  const from = new Date(Date.now() - 3600_000);
  emu.userMessage({ channelId: channel.id, content: 'in the channel', ...carol });
  const active = emu.addThread(channel.id, 'still open');
  emu.userMessage({ channelId: active.id, content: 'in an open thread', ...carol });
  // 105 threads archived within the period (newest first on the pages: 100, then 5 more) ...
  const recent = Array.from({ length: 105 }, (_, i) => emu.addThread(channel.id, `recent ${i}`));
  emu.userMessage({ channelId: recent[0]!.id, content: 'in the first thread archived', ...carol });
  emu.userMessage({ channelId: recent[104]!.id, content: 'on the second page', ...carol });
  recent.forEach((t, i) => emu.archiveThread(t.id, new Date(Date.now() - 60_000 - (104 - i) * 1000)));
  // ... then 100 archived two days ago: their page is the last one read, and none of them is read.
  const old = Array.from({ length: 100 }, (_, i) => emu.addThread(channel.id, `old ${i}`));
  emu.userMessage({ channelId: old[0]!.id, content: 'archived before the period', ...carol });
  old.forEach((t, i) => emu.archiveThread(t.id, new Date(Date.now() - 2 * 86_400_000 - i * 1000)));
  // Another channel's archived thread is not this channel's.
  const other = emu.addChannel(guild.id, 'elsewhere');
  const elsewhere = emu.addThread(other.id, 'elsewhere');
  emu.userMessage({ channelId: elsewhere.id, content: 'in another channel', ...carol });
  emu.archiveThread(elsewhere.id);

  const rest = { restApi: emu.restApi, token: emu.token, timeoutMs: 10_000 };
  const seen: ChannelEvent[] = [];
  let paced = 0;
  const requestsBefore = emu.requests.length;
  const read = await readGuildHistory(
    rest,
    emu.bot.id,
    { chatId: channel.id, scope: guild.id },
    from.toISOString(),
    (e) => seen.push(e),
    { pace: (call) => (paced++, call()) },
  );
  const texts = seen.flatMap((e) => (e.kind === 'message' ? [e.text] : []));
  assert.deepEqual(texts.sort(), [
    'in an open thread',
    'in the channel',
    'in the first thread archived',
    'on the second page',
  ]);
  assert.equal(read, 4);
  const threadOf = (text: string) => {
    const e = seen.find((e) => e.kind === 'message' && e.text === text);
    return e?.kind === 'message' ? e.threadId : undefined;
  };
  assert.equal(threadOf('on the second page'), recent[104]!.id, 'kept as a thread message');
  const requests = emu.requests.slice(requestsBefore);
  const archivedPages = requests.filter((r) => r.path.endsWith(`/channels/${channel.id}/threads/archived/public`));
  assert.equal(archivedPages.length, 2, 'two pages: the second ends with threads archived before the period');
  assert.ok(
    !requests.some((r) => old.some((t) => r.path.includes(`/channels/${t.id}/`))),
    'no thread archived before the period is read',
  );
  assert.equal(paced, requests.length, 'every request went through the pacer');
});

test('a thread Discord refuses (403) is left out and said; the rest of the history is read', async () => {
  const { guild, channel } = emu.addGuild('team', 'private-threads');
  const carol = { userId: '2000000000000000003', userName: 'carol' };
  const from = new Date(Date.now() - 3600_000);
  emu.userMessage({ channelId: channel.id, content: 'in the channel', ...carol });
  const open = emu.addThread(channel.id, 'open to the bot');
  emu.userMessage({ channelId: open.id, content: 'in a thread the bot may read', ...carol });
  const closed = emu.addThread(channel.id, 'private');
  emu.userMessage({ channelId: closed.id, content: 'in a thread the bot may not read', ...carol });
  const archived = emu.addThread(channel.id, 'archived');
  emu.userMessage({ channelId: archived.id, content: 'in an archived thread', ...carol });
  emu.archiveThread(archived.id);
  emu.hideFromBot(closed.id);

  const rest = { restApi: emu.restApi, token: emu.token, timeoutMs: 10_000 };
  const read = async () => {
    const seen: ChannelEvent[] = [];
    const skipped: string[] = [];
    const count = await readGuildHistory(
      rest,
      emu.bot.id,
      { chatId: channel.id, scope: guild.id },
      from.toISOString(),
      (e) => seen.push(e),
      { skipped: (what, reason) => skipped.push(`${what}: ${reason}`) },
    );
    return { count, skipped, texts: seen.flatMap((e) => (e.kind === 'message' ? [e.text] : [])).sort() };
  };
  const first = await read();
  assert.deepEqual(first.texts, ['in a thread the bot may read', 'in an archived thread', 'in the channel']);
  assert.equal(first.count, 3);
  assert.equal(first.skipped.length, 1);
  assert.match(first.skipped[0]!, new RegExp(`^thread ${closed.id}: .*403: .*Missing Access`));

  // Each refused thread is left out on its own, an archived one too.
  emu.hideFromBot(archived.id);
  const second = await read();
  assert.deepEqual(second.texts, ['in a thread the bot may read', 'in the channel']);
  assert.equal(second.skipped.length, 2);

  // The channel itself refused fails the read: there is nothing to backfill from.
  emu.hideFromBot(channel.id);
  await assert.rejects(read(), /403: .*Missing Access/);
});
