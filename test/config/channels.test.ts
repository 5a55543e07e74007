// What an enabled channel lacks before it can start, said once (config/channels.ts) for
// `boxbot start` and `boxbot doctor`: each problem names the config key or variable to set.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { channelProblems } from '../../src/config/channels.ts';
import { ConfigError, type LoadedConfig } from '../../src/config/load.ts';
import { type Config, configSchema } from '../../src/config/schema.ts';
import { silentLogger } from '../../src/core/log.ts';
import { channelAdapters } from '../../src/main.ts';
import { createMemoryStore } from '../../src/store/index.ts';

const config = (channels: Record<string, unknown>): Config => configSchema.parse({ channels });
const keys = (c: Config, secrets: Record<string, string>) => channelProblems(c, secrets).map((p) => p.key);

test('channels that are off, or on with what they need, lack nothing', () => {
  assert.deepEqual(channelProblems(config({}), {}), []);
  assert.deepEqual(
    channelProblems(config({ slack: { mode: 'http' } }), { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' }),
    [],
  );
  assert.deepEqual(
    channelProblems(config({ telegram: { mode: 'webhook', webhookUrl: 'https://bot.example/webhooks/telegram' } }), {
      TELEGRAM_BOT_TOKEN: '1:a',
      TELEGRAM_WEBHOOK_SECRET: 'a-Secret_1',
    }),
    [],
  );
});

test('a channel enabled without its token names the variable, as boxbot start says it', () => {
  assert.deepEqual(channelProblems(config({ telegram: { enabled: true } }), {}), [
    {
      channel: 'telegram',
      key: 'TELEGRAM_BOT_TOKEN',
      message: 'channels.telegram is enabled but TELEGRAM_BOT_TOKEN is not set',
    },
  ]);
  assert.deepEqual(keys(config({ discord: { enabled: true } }), {}), ['DISCORD_BOT_TOKEN']);
  // Slack in its default mode (socket) needs its app token as well.
  assert.deepEqual(keys(config({ slack: { enabled: true } }), {}), ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN']);
});

test("a mode's own settings: Telegram's webhook URL and secret, Slack's app token or signing secret", () => {
  assert.deepEqual(keys(config({ telegram: { mode: 'webhook' } }), { TELEGRAM_BOT_TOKEN: '1:a' }), [
    'channels.telegram.webhookUrl',
    'TELEGRAM_WEBHOOK_SECRET',
  ]);
  const [socket] = channelProblems(config({}), { SLACK_BOT_TOKEN: 'xoxb-1' });
  assert.match(socket?.message ?? '', /^channels\.slack\.mode is "socket": set SLACK_APP_TOKEN/);
  const [http] = channelProblems(config({ slack: { mode: 'http' } }), { SLACK_BOT_TOKEN: 'xoxb-1' });
  assert.equal(http?.message, 'channels.slack.mode is "http": set SLACK_SIGNING_SECRET so every event can be verified');
});

test('a webhook secret Telegram would refuse is named before the adapter is made', () => {
  const c = config({ telegram: { mode: 'webhook', webhookUrl: 'https://bot.example/webhooks/telegram' } });
  assert.deepEqual(channelProblems(c, { TELEGRAM_BOT_TOKEN: '1:a', TELEGRAM_WEBHOOK_SECRET: 'has space' }), [
    {
      channel: 'telegram',
      key: 'TELEGRAM_WEBHOOK_SECRET',
      message:
        'channels.telegram.mode is "webhook": TELEGRAM_WEBHOOK_SECRET must be 1-256 of A-Z a-z 0-9 _ - ' +
        '(Telegram refuses any other secret)',
    },
  ]);
});

test('boxbot start refuses with a ConfigError listing every problem (no adapter is made)', () => {
  const loaded = { config: config({ telegram: { mode: 'webhook' }, discord: { enabled: true } }) } as LoadedConfig;
  const store = createMemoryStore();
  assert.throws(
    () =>
      channelAdapters(
        loaded,
        { TELEGRAM_BOT_TOKEN: '1:a', TELEGRAM_WEBHOOK_SECRET: 'bad secret' },
        store,
        silentLogger,
      ),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.message ===
        'channels.telegram.mode is "webhook": set channels.telegram.webhookUrl (the public URL ending in ' +
          '/webhooks/telegram); channels.telegram.mode is "webhook": TELEGRAM_WEBHOOK_SECRET must be 1-256 of ' +
          'A-Z a-z 0-9 _ - (Telegram refuses any other secret); channels.discord is enabled but DISCORD_BOT_TOKEN ' +
          'is not set',
  );
});
