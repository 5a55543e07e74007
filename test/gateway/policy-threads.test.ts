// Policy resolution: which override a message gets. Thread overrides are keyed `<chat>:<thread>`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configSchema } from '../../src/config/schema.ts';
import { resolvePolicy } from '../../src/runner/policy.ts';

test('a Telegram topic whose id equals the admin private chat id does not get that chat override', () => {
  const config = configSchema.parse({
    channels: { telegram: { access: 'read-only', chats: { '4242': { access: 'full' } } } },
  });
  // The admin's private chat is full.
  assert.equal(resolvePolicy(config, { platform: 'telegram', chatId: '4242', userId: '4242' }).access, 'full');
  // A group member creates topic 4242 in their group: the group stays read-only.
  const topic = resolvePolicy(config, { platform: 'telegram', chatId: '-100777', threadId: '4242', userId: '99' });
  assert.equal(topic.access, 'read-only');
});

test('thread overrides keyed <chat>:<thread> apply on Telegram, Discord and Slack; bare thread ids never match', () => {
  const config = configSchema.parse({
    channels: {
      telegram: { access: 'read-only', chats: { '-100123:45': { access: 'full' }, '45': { access: 'full' } } },
      discord: {
        access: 'read-only',
        channels: { '111:222': { access: 'full', tools: { deny: ['bash'] } }, '222': { access: 'full' } },
      },
      slack: { access: 'read-only', channels: { 'C1:171.1': { access: 'chat-only' }, '171.1': { access: 'full' } } },
    },
  });
  assert.equal(
    resolvePolicy(config, { platform: 'telegram', chatId: '-100123', threadId: '45', userId: 'u' }).access,
    'full',
  );
  assert.equal(
    resolvePolicy(config, { platform: 'telegram', chatId: '-100999', threadId: '45', userId: 'u' }).access,
    'read-only',
  );
  const discord = resolvePolicy(config, { platform: 'discord', chatId: '111', threadId: '222', userId: 'u' });
  assert.equal(discord.access, 'full');
  assert.deepEqual(discord.tools.deny, ['bash']);
  assert.equal(
    resolvePolicy(config, { platform: 'discord', chatId: '333', threadId: '222', userId: 'u' }).access,
    'read-only',
  );
  assert.equal(
    resolvePolicy(config, { platform: 'slack', chatId: 'C1', threadId: '171.1', userId: 'u' }).access,
    'chat-only',
  );
  assert.equal(
    resolvePolicy(config, { platform: 'slack', chatId: 'C2', threadId: '171.1', userId: 'u' }).access,
    'read-only',
  );
});

test('a thread override applies on top of its chat override', () => {
  const config = configSchema.parse({
    channels: {
      slack: { channels: { C1: { access: 'full', tools: { deny: ['a'] } }, 'C1:9.9': { tools: { deny: ['b'] } } } },
    },
  });
  const p = resolvePolicy(config, { platform: 'slack', chatId: 'C1', threadId: '9.9', userId: 'u' });
  assert.equal(p.access, 'full');
  assert.deepEqual(p.tools.deny, ['a', 'b']);
});
