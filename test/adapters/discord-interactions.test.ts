// Discord's in-chat controls against the emulator: a slash command is answered at once with a
// deferred response that the gateway's answer then fills in (and edits through the interaction
// webhook), a press is acknowledged with a deferred update, a replayed interaction is delivered
// and answered once, and a command the sink refused is told so, to its user only.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { InboundMessage } from '../../src/adapters/index.ts';
import { until } from './contract.ts';
import { type DiscordHarness, discordHarness } from './discord-harness.ts';

describe('discord interactions', () => {
  let h: DiscordHarness;
  const got: InboundMessage[] = [];
  let refuse = false;
  before(async () => {
    h = await discordHarness();
    await h.adapter.start(async (m) => {
      if (refuse) throw new Error('store unavailable');
      got.push(m);
    });
    await h.adapter.setCommands!([
      { name: 'model', description: 'Show or switch the model', argument: { name: 'name', description: 'a model' } },
      { name: 'new', description: 'Start a new conversation' },
    ]);
  });
  after(async () => {
    await h.adapter.stop();
    await h.close();
  });
  beforeEach(() => {
    got.length = 0;
    refuse = false;
  });

  test('commands are registered by bulk overwrite, one optional string option where there is an argument', () => {
    const put = h.emu.requests.find((r) => r.method === 'PUT' && r.path.endsWith('/commands'))!;
    assert.equal(put.path, `/api/v10/applications/${h.emu.bot.id}/commands`);
    assert.deepEqual(
      (put.body as { name: string; options: { type: number; required: boolean }[] }[]).map((c) => [
        c.name,
        c.options.map((o) => `${o.type}:${o.required}`).join(),
      ]),
      [
        ['model', '3:false'],
        ['new', ''],
      ],
    );
  });

  const deferredTitle =
    'a command is deferred at once; the answer to it fills in the deferral and its edits use the webhook';
  test(deferredTitle, async () => {
    const i = h.emu.interactions.runCommand({
      channelId: h.channel.id,
      userId: '4242',
      name: 'model',
      value: 'gpt-4o',
    });
    await until(() => got.length === 1, 'the command');
    assert.equal(i.response, 5);
    assert.deepEqual([got[0]!.text, got[0]!.isDirect, got[0]!.mentionsBot], ['/model gpt-4o', false, true]);
    // The gateway replies to an inbound message with its messageId as replyToMessageId.
    const other = await h.adapter.send({ ...h.groupTarget(), replyToMessageId: '1200000000000000001' }, 'unrelated');
    assert.notEqual(other.messageId, i.originalId, 'an answer to another message leaves the deferral alone');
    const target = { ...h.groupTarget(), replyToMessageId: got[0]!.messageId! };
    const sent = await h.adapter.send(target, 'Now using **gpt-4o**.');
    assert.equal(sent.messageId, i.originalId);
    await h.adapter.edit(target, sent.messageId, 'Now using gpt-4o (default for this channel).');
    const m = h.emu.world.messages.get(sent.messageId)!;
    assert.deepEqual([m.content, m.flags & 128], ['Now using gpt-4o (default for this channel).', 0]);
    assert.ok(
      h.emu.requests.some(
        (r) => r.method === 'PATCH' && r.path.includes(`/webhooks/`) && r.path.endsWith(sent.messageId),
      ),
    );
    const next = await h.adapter.send(target, 'a second message');
    assert.notEqual(next.messageId, sent.messageId, 'only the first answer fills in the deferral');
  });

  test('a file answering a slash command goes to its channel (no reply reference to the interaction)', async () => {
    h.emu.interactions.runCommand({ channelId: h.channel.id, userId: '4242', name: 'new' });
    await until(() => got.length === 1, 'the command');
    const target = { ...h.groupTarget(), replyToMessageId: got[0]!.messageId! };
    const file = { name: 'notes.txt', mimeType: 'text/plain', bytes: new Uint8Array(Buffer.from('hello')) };
    const sent = await h.adapter.sendFile!(target, file);
    const m = h.emu.world.messages.get(sent.messageId)!;
    assert.equal(m.channel_id, h.channel.id);
    assert.deepEqual(
      (m.uploads ?? []).map((u) => u.filename),
      ['notes.txt'],
    );
  });

  test('six buttons are shown in two rows of at most five, and the sixth can be pressed', async () => {
    const buttons = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => ({ id, label: id.toUpperCase() }));
    const sent = await h.adapter.send(h.directTarget(), 'pick', { buttons });
    const rows = h.emu.world.messages.get(sent.messageId)!.components as { components: { custom_id: string }[] }[];
    assert.deepEqual(
      rows.map((r) => r.components.map((b) => b.custom_id).join('')),
      ['abcde', 'f'],
    );
    h.emu.interactions.press({ messageId: sent.messageId, customId: 'f', userId: '4242' });
    await until(() => got.length === 1, 'the press');
    assert.equal(got[0]!.action?.id, 'f');
  });

  test('a press is acknowledged with a deferred update; a replayed one is delivered and answered once', async () => {
    const sent = await h.adapter.send(h.directTarget(), 'approve?', {
      buttons: [{ id: 'approve:7', label: 'Approve', style: 'primary' }],
    });
    const i = h.emu.interactions.press({ messageId: sent.messageId, customId: 'approve:7', userId: '4242' });
    await until(() => got.length === 1, 'the press');
    assert.equal(i.response, 6);
    h.emu.interactions.replay(i);
    h.emu.userMessage({ channelId: h.dm.id, content: 'marker' });
    await until(() => got.some((m) => m.text === 'marker'), 'the marker');
    assert.equal(got.filter((m) => m.action).length, 1);
    const callbacks = h.emu.requests.filter((r) => r.path.startsWith(`/api/v10/interactions/${i.id}/`));
    assert.deepEqual(
      callbacks.map((r) => r.status),
      [204],
    );
  });

  test('a command the sink refused gets an ephemeral "try again" for its user', async () => {
    refuse = true;
    h.emu.interactions.runCommand({ channelId: h.dm.id, userId: '4242', name: 'new' });
    await until(() => h.emu.interactions.ephemeral.some((e) => /try again/.test(e.content)), 'the ephemeral note');
    assert.equal(h.emu.interactions.ephemeral.at(-1)!.userId, '4242');
  });
});

test('setCommands works before start too (the application id is looked up)', async () => {
  const h = await discordHarness();
  try {
    await h.adapter.setCommands!([{ name: 'usage', description: 'Show what this conversation cost' }]);
    assert.deepEqual(
      h.emu.interactions.commands.map((c) => c.name),
      ['usage'],
    );
  } finally {
    await h.close();
  }
});
