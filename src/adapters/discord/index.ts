// Public names of the Discord adapter.
export { createDiscordAdapter, DISCORD_CAPABILITIES, type DiscordAdapterOptions } from './adapter.ts';
export { DISCORD_INTENTS } from './client.ts';
export { toDiscordMarkdown } from './format.ts';
export { type ParsedInteraction, parseInteraction } from './interactions.ts';
export {
  type DiscordMessage,
  type DiscordNormalizeResult,
  type NormalizeContext,
  normalizeMessageCreate,
  parseMessageCreate,
  type SkipReason,
  toInboundMessage,
} from './normalize.ts';
