// Public names of the Discord adapter.
export { createDiscordAdapter, DISCORD_CAPABILITIES, type DiscordAdapterOptions } from './adapter.ts';
export { DISCORD_INTENTS } from './client.ts';
export { toDiscordMarkdown } from './format.ts';
export { normalizeMessageCreate, parseMessageCreate, toInboundMessage, type DiscordMessage, type DiscordNormalizeResult, type NormalizeContext, type SkipReason } from './normalize.ts';
