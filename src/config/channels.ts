// Which chat channels the config and environment turn on: one rule for `boxbot start`, `doctor`
// and the scheduler's target check. A channel is on when its token is set or `enabled` is true,
// and off when `enabled` is false; the web chat is on unless disabled.
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

/** Whether `name`'s channel is on. */
export function channelEnabled(config: Config, secrets: Secrets, name: ChannelName): boolean {
  const section = config.channels[name] as { enabled?: boolean } | undefined;
  if (section?.enabled === false) return false;
  if (name === 'web') return true;
  return section?.enabled === true || Boolean(secrets[CHANNEL_TOKENS[name]]);
}
