// Which chat channels the config and environment turn on, and what an enabled one still lacks:
// one rule for `boxbot start`, `doctor` and the scheduler's target check. A channel is on when its
// token is set or `enabled` is true, and off when `enabled` is false; the web chat is on unless
// disabled.
import type { Secrets } from './env.ts';
import type { Config } from './schema.ts';

/** The platforms with a channel section. */
export type ChannelName = 'telegram' | 'discord' | 'slack' | 'web';

/** The token variable that turns each platform on (the web chat needs none). */
export const CHANNEL_TOKENS: Readonly<Record<Exclude<ChannelName, 'web'>, string>> = {
  telegram: 'TELEGRAM_BOT_TOKEN',
  discord: 'DISCORD_BOT_TOKEN',
  slack: 'SLACK_BOT_TOKEN',
};

/** Telegram's rule for a webhook's secret_token: 1-256 of A-Z, a-z, 0-9, `_` and `-`. */
export const TELEGRAM_WEBHOOK_SECRET_RULE = /^[A-Za-z0-9_-]{1,256}$/;

/** Whether `name`'s channel is on. */
export function channelEnabled(config: Config, secrets: Secrets, name: ChannelName): boolean {
  const section = config.channels[name] as { enabled?: boolean } | undefined;
  if (section?.enabled === false) return false;
  if (name === 'web') return true;
  return section?.enabled === true || Boolean(secrets[CHANNEL_TOKENS[name]]);
}

/** Something an enabled channel lacks before it can start. */
export interface ChannelProblem {
  channel: ChannelName;
  /** The config key or environment variable to set (`channels.telegram.webhookUrl`, `SLACK_APP_TOKEN`). */
  key: string;
  /** One line saying what to set, naming `key`. */
  message: string;
}

/**
 * What the enabled channels lack before they can start (a token, a webhook's URL or secret, the
 * token or secret of Slack's mode), in channel order; empty when every enabled channel can start.
 * @example for (const p of channelProblems(config, secrets)) console.log(p.message);
 */
export function channelProblems(config: Config, secrets: Secrets): ChannelProblem[] {
  const problems: ChannelProblem[] = [];
  const lacks = (channel: ChannelName, key: string, message: string) => problems.push({ channel, key, message });
  const ch = config.channels;
  if (channelEnabled(config, secrets, 'telegram')) {
    if (!secrets.TELEGRAM_BOT_TOKEN)
      lacks('telegram', 'TELEGRAM_BOT_TOKEN', 'channels.telegram is enabled but TELEGRAM_BOT_TOKEN is not set');
    if (ch.telegram?.mode === 'webhook') {
      if (!ch.telegram.webhookUrl)
        lacks(
          'telegram',
          'channels.telegram.webhookUrl',
          'channels.telegram.mode is "webhook": set channels.telegram.webhookUrl (the public URL ending in ' +
            '/webhooks/telegram)',
        );
      const secret = secrets.TELEGRAM_WEBHOOK_SECRET;
      if (!secret || !TELEGRAM_WEBHOOK_SECRET_RULE.test(secret))
        lacks(
          'telegram',
          'TELEGRAM_WEBHOOK_SECRET',
          secret
            ? 'channels.telegram.mode is "webhook": TELEGRAM_WEBHOOK_SECRET must be 1-256 of A-Z a-z 0-9 _ - ' +
                '(Telegram refuses any other secret)'
            : 'channels.telegram.mode is "webhook": set TELEGRAM_WEBHOOK_SECRET (1-256 of A-Z a-z 0-9 _ -)',
        );
    }
  }
  if (channelEnabled(config, secrets, 'discord') && !secrets.DISCORD_BOT_TOKEN)
    lacks('discord', 'DISCORD_BOT_TOKEN', 'channels.discord is enabled but DISCORD_BOT_TOKEN is not set');
  if (channelEnabled(config, secrets, 'slack')) {
    if (!secrets.SLACK_BOT_TOKEN)
      lacks('slack', 'SLACK_BOT_TOKEN', 'channels.slack is enabled but SLACK_BOT_TOKEN is not set');
    const mode = ch.slack?.mode ?? 'socket';
    if (mode === 'socket' && !secrets.SLACK_APP_TOKEN)
      lacks(
        'slack',
        'SLACK_APP_TOKEN',
        'channels.slack.mode is "socket": set SLACK_APP_TOKEN (an xapp- token with connections:write), or use mode ' +
          '"http" with SLACK_SIGNING_SECRET',
      );
    if (mode === 'http' && !secrets.SLACK_SIGNING_SECRET)
      lacks(
        'slack',
        'SLACK_SIGNING_SECRET',
        'channels.slack.mode is "http": set SLACK_SIGNING_SECRET so every event can be verified',
      );
  }
  return problems;
}
