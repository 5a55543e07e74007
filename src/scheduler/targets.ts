// Which conversations a job may target when no gateway is running to ask (the CLI): those of a
// platform whose channel the config and environment turn on, the same rule `boxbot start` uses.
import { decodeConversationKey } from '../adapters/index.ts';
import { CHANNEL_TOKENS, channelEnabled } from '../config/channels.ts';
import type { Secrets } from '../config/env.ts';
import type { Config } from '../config/schema.ts';
import type { TargetCheck } from './types.ts';

/** A TargetCheck from the config and secrets: the key's platform must have its channel on. */
export function configuredTargetCheck(config: Config, secrets: Secrets): TargetCheck {
  return (key) => {
    const { platform } = decodeConversationKey(key);
    if (platform === 'terminal') return `${platform} conversations cannot receive scheduled posts`;
    if (channelEnabled(config, secrets, platform)) return true;
    if ((config.channels[platform] as { enabled?: boolean } | undefined)?.enabled === false) {
      return `the ${platform} channel is off (channels.${platform}.enabled is false), so ${key} cannot receive posts`;
    }
    return (
      `no ${platform} channel is configured for ${key}: ` +
      `set ${CHANNEL_TOKENS[platform as Exclude<typeof platform, 'web'>]} (or channels.${platform}.enabled)`
    );
  };
}
