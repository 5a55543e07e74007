// Resolves a message's policy from config (shared/design.md, "Conversations and policy"):
// platform defaults → chat/channel overrides → user overrides, then decides whether the
// message reaches the agent at all (allowFrom, requireMention).
import type { InboundMessage } from '../adapters/index.ts';
import type { AccessMode } from '../agent/tools/index.ts';
import type { Config } from '../config/schema.ts';

/** The access modes (the agent's own type: which tool levels a conversation permits). */
export type { AccessMode };

/** Everything the gateway and the agent need to know about one message's permissions. */
export interface ResolvedPolicy {
  access: AccessMode;
  /** Users or chats allowed to talk to the bot; undefined = everyone. */
  allowFrom?: string[];
  requireMention: boolean;
  tools: { allow?: string[]; deny?: string[] };
  model?: string;
  systemPrompt?: string;
  network: { allow: string[] };
}

/** Why a message does not reach the agent; `reply` says whether the user is told. */
export type Admission = { admitted: true } | { admitted: false; reason: 'not-allowed' | 'not-addressed'; reply: boolean };

type Override = {
  access?: AccessMode;
  allowFrom?: string[];
  requireMention?: boolean;
  tools?: { allow?: string[]; deny?: string[] };
  model?: string;
  systemPrompt?: string;
  network?: { allow: string[] };
};

/** Default access per platform when the config says nothing: the local web chat is yours; group platforms start read-only. */
const DEFAULT_ACCESS: Record<string, AccessMode> = { web: 'full', terminal: 'full', telegram: 'read-only', discord: 'read-only', slack: 'read-only' };

function apply(base: ResolvedPolicy, o: Override | undefined): ResolvedPolicy {
  if (!o) return base;
  return {
    access: o.access ?? base.access,
    ...(o.allowFrom !== undefined ? { allowFrom: o.allowFrom } : base.allowFrom ? { allowFrom: base.allowFrom } : {}),
    requireMention: o.requireMention ?? base.requireMention,
    tools: {
      ...(o.tools?.allow ?? base.tools.allow ? { allow: o.tools?.allow ?? base.tools.allow } : {}),
      // Deny lists accumulate: a channel cannot lift a platform-wide deny.
      ...(o.tools?.deny || base.tools.deny ? { deny: [...new Set([...(base.tools.deny ?? []), ...(o.tools?.deny ?? [])])] } : {}),
    },
    ...(o.model ?? base.model ? { model: o.model ?? base.model } : {}),
    ...(o.systemPrompt ?? base.systemPrompt ? { systemPrompt: o.systemPrompt ?? base.systemPrompt } : {}),
    network: o.network ?? base.network,
  };
}

/** The chat/channel override table of a platform's config. */
function chatOverrides(config: Config, platform: string): Record<string, Override> | undefined {
  const ch = config.channels as Record<string, { chats?: Record<string, Override>; channels?: Record<string, Override> } | undefined>;
  const c = ch[platform];
  return c?.chats ?? c?.channels;
}

/**
 * Resolves the policy for `msg`: the chat override keyed by chatId, then the thread override keyed
 * `<chatId>:<threadId>`, then the user override keyed by userId. A bare thread id never matches:
 * thread ids are only unique within their chat (a Telegram topic id can equal a private chat id).
 */
export function resolvePolicy(config: Config, msg: Pick<InboundMessage, 'platform' | 'chatId' | 'threadId' | 'userId'>): ResolvedPolicy {
  const platformCfg = (config.channels as Record<string, (Override & { users?: Record<string, Override> }) | undefined>)[msg.platform];
  let p: ResolvedPolicy = {
    access: DEFAULT_ACCESS[msg.platform] ?? 'read-only',
    requireMention: true,
    tools: {},
    ...(config.model ? { model: config.model } : {}),
    network: { allow: config.sandbox.network.allow },
  };
  p = apply(p, platformCfg);
  const chats = chatOverrides(config, msg.platform);
  p = apply(p, chats?.[msg.chatId]);
  if (msg.threadId) p = apply(p, chats?.[`${msg.chatId}:${msg.threadId}`]);
  p = apply(p, platformCfg?.users?.[msg.userId]);
  return p;
}

/** Decides whether `msg` reaches the agent under `policy`. */
export function admit(policy: ResolvedPolicy, msg: Pick<InboundMessage, 'userId' | 'chatId' | 'isDirect' | 'mentionsBot' | 'text'>, opts: { replyToStrangers: boolean }): Admission {
  if (policy.allowFrom && !policy.allowFrom.includes(msg.userId) && !policy.allowFrom.includes(msg.chatId) && !policy.allowFrom.includes('*')) {
    // In groups a stranger who did not address the bot gets silence either way.
    return { admitted: false, reason: 'not-allowed', reply: opts.replyToStrangers && (msg.isDirect || msg.mentionsBot) };
  }
  if (!msg.isDirect && policy.requireMention && !msg.mentionsBot) return { admitted: false, reason: 'not-addressed', reply: false };
  return { admitted: true };
}
