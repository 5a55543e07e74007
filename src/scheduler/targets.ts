// Which conversations a job may target when no gateway is running to ask (the CLI): those of a
// platform whose channel the config and environment turn on, the same rule `boxbot start` uses.
import { decodeConversationKey } from '../adapters/conversation-key.ts';
import type { Secrets } from '../config/env.ts';
import type { Config } from '../config/schema.ts';
import type { TargetCheck } from './types.ts';

const TOKENS: Record<string, string> = { telegram: 'TELEGRAM_BOT_TOKEN', discord: 'DISCORD_BOT_TOKEN', slack: 'SLACK_BOT_TOKEN' };

/** A TargetCheck from the config and secrets: the key's platform must have its channel on. */
export function configuredTargetCheck(config: Config, secrets: Secrets): TargetCheck {
  return (key) => {
    const { platform } = decodeConversationKey(key);
    const channel = (config.channels as Record<string, { enabled?: boolean } | undefined>)[platform];
    if (platform === 'web') return channel?.enabled === false ? `the web channel is off (channels.web.enabled is false), so ${key} cannot receive posts` : true;
    const token = TOKENS[platform];
    if (!token) return `${platform} conversations cannot receive scheduled posts`;
    if (channel?.enabled === false) return `the ${platform} channel is off (channels.${platform}.enabled is false), so ${key} cannot receive posts`;
    if (channel?.enabled || Object.hasOwn(secrets, token)) return true;
    return `no ${platform} channel is configured for ${key}: set ${token} (or channels.${platform}.enabled)`;
  };
}
