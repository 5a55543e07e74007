// Discord's private message (a /web sign-in link): a DM channel is opened with the speaker
// (POST /users/@me/channels) and the text posted there, never in the channel they asked in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discordHarness } from './discord-harness.ts';

test('discord sendPrivate opens a DM with the speaker and posts the text there only', async (t) => {
  const h = await discordHarness();
  t.after(() => h.close());
  await h.adapter.sendPrivate!({ chatId: h.channel.id, userId: '4242' }, 'Your link: https://x.example/login/t');
  const dm = h.emu.world.dmChannel(h.emu.world.user('4242'));
  assert.deepEqual(
    h.emu.messagesIn(dm.id).map((m) => m.content),
    ['Your link: https://x.example/login/t'],
  );
  assert.deepEqual(h.emu.messagesIn(h.channel.id), [], 'nothing in the channel');
});
