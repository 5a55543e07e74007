// Resolves a message's policy from config (README, "Configuration"):
// platform defaults → chat/channel overrides → user overrides, then decides whether the
// message reaches the agent at all (allowFrom, requireMention).
import { decodeConversationKey, spaceKeyOf } from '../adapters/conversation-key.ts';
import { decodeUserKey, type InboundMessage, speakerOf } from '../adapters/index.ts';
import type { AccessMode, ApprovalRules } from '../agent/index.ts';
import { intersectHosts } from '../agent/tools/grants.ts';
import type { McpServerConfig } from '../config/mcp.ts';
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
  /** Other `provider/model`s sub-agents may use (undefined: only `model`). */
  models?: string[];
  systemPrompt?: string;
  network: { allow: string[] };
  /** Daily spending limits in USD (UTC days). */
  budget?: Budget;
  /** Which tool calls wait for a person's yes, and who gives it. */
  approvals?: ApprovalRules;
  /** MCP servers offered here, by name (an entry with `enabled: false` is off). */
  mcp?: Record<string, McpServerConfig>;
  /** Managed mode: runs here only delegate, to these executors. */
  manager?: { executors: string[]; maxConcurrent: number };
}

/** Policy `budget`. */
export interface Budget {
  conversationUsdPerDay?: number;
  userUsdPerDay?: number;
}

/** The part of a policy that bounds what a run may do; what a job or sub-agent carries from its creator. */
export type PolicyLimits = Pick<ResolvedPolicy, 'access' | 'tools' | 'network' | 'model' | 'models' | 'approvals'>;

/** Why a message does not reach the agent; `reply` says whether the user is told. */
export type Admission =
  | { admitted: true }
  | { admitted: false; reason: 'not-allowed' | 'not-addressed'; reply: boolean };

type Override = {
  access?: AccessMode;
  allowFrom?: string[];
  requireMention?: boolean;
  tools?: { allow?: string[]; deny?: string[] };
  model?: string;
  models?: string[];
  systemPrompt?: string;
  network?: { allow: string[] };
  budget?: Budget;
  approvals?: ApprovalRules;
  mcp?: { servers: Record<string, McpServerConfig> };
  manager?: { executors: string[]; maxConcurrent: number };
};

/**
 * Default access per platform when the config says nothing: the local web chat is yours; group platforms start
 * read-only.
 */
const DEFAULT_ACCESS: Record<string, AccessMode> = {
  web: 'full',
  terminal: 'full',
  telegram: 'read-only',
  discord: 'read-only',
  slack: 'read-only',
};

function apply(base: ResolvedPolicy, o: Override | undefined): ResolvedPolicy {
  if (!o) return base;
  return {
    access: o.access ?? base.access,
    ...(o.allowFrom !== undefined ? { allowFrom: o.allowFrom } : base.allowFrom ? { allowFrom: base.allowFrom } : {}),
    requireMention: o.requireMention ?? base.requireMention,
    tools: {
      ...((o.tools?.allow ?? base.tools.allow) ? { allow: o.tools?.allow ?? base.tools.allow } : {}),
      // Deny lists accumulate: a channel cannot lift a platform-wide deny.
      ...(o.tools?.deny || base.tools.deny
        ? { deny: [...new Set([...(base.tools.deny ?? []), ...(o.tools?.deny ?? [])])] }
        : {}),
    },
    ...((o.model ?? base.model) ? { model: o.model ?? base.model } : {}),
    ...((o.models ?? base.models) ? { models: o.models ?? base.models } : {}),
    ...((o.systemPrompt ?? base.systemPrompt) ? { systemPrompt: o.systemPrompt ?? base.systemPrompt } : {}),
    network: o.network ?? base.network,
    // Field by field: a chat can lower its own limit without restating the platform's others.
    ...(o.budget || base.budget ? { budget: { ...base.budget, ...o.budget } } : {}),
    ...(o.approvals || base.approvals ? { approvals: { ...base.approvals, ...o.approvals } } : {}),
    // A narrower level adds servers, or replaces or turns off (`enabled: false`) one of the same name.
    ...(o.mcp || base.mcp ? { mcp: { ...base.mcp, ...o.mcp?.servers } } : {}),
    ...((o.manager ?? base.manager) ? { manager: o.manager ?? base.manager } : {}),
  };
}

/** The chat/channel override table of a platform's config. */
function chatOverrides(config: Config, platform: string): Record<string, Override> | undefined {
  const ch = config.channels as Record<
    string,
    { chats?: Record<string, Override>; channels?: Record<string, Override> } | undefined
  >;
  const c = ch[platform];
  return c?.chats ?? c?.channels;
}

/**
 * Resolves the policy for `msg`: the chat override keyed by chatId, then the thread override keyed
 * `<chatId>:<threadId>`, then the user override keyed by userId. A bare thread id never matches:
 * thread ids are only unique within their chat (a Telegram topic id can equal a private chat id).
 * A web chat browser signed in as a user of another platform (`signedInAs: telegram:4242`) gets
 * that user's policy as in their private chat with the bot: the platform's, the chat override
 * keyed by their user id (a Telegram private chat's id), then their user override.
 */
export function resolvePolicy(
  config: Config,
  msg: Pick<InboundMessage, 'platform' | 'chatId' | 'threadId' | 'userId' | 'signedInAs'>,
): ResolvedPolicy {
  const who = speakerOf(msg);
  if (who.platform !== msg.platform)
    return resolvePolicy(config, { platform: who.platform, chatId: who.userId, userId: who.userId });
  const platformCfg = (
    config.channels as Record<string, (Override & { users?: Record<string, Override> }) | undefined>
  )[msg.platform];
  let p: ResolvedPolicy = {
    access: DEFAULT_ACCESS[msg.platform] ?? 'read-only',
    requireMention: true,
    tools: {},
    ...(config.model ? { model: config.model } : {}),
    network: { allow: config.sandbox.network.allow },
    ...(config.mcp ? { mcp: { ...config.mcp.servers } } : {}),
  };
  p = apply(p, platformCfg);
  const chats = chatOverrides(config, msg.platform);
  p = apply(p, chats?.[msg.chatId]);
  if (msg.threadId) p = apply(p, chats?.[`${msg.chatId}:${msg.threadId}`]);
  p = apply(p, platformCfg?.users?.[who.userId]);
  return p;
}

/** The current policy of a conversation as a whole (no user override): what a job posting there may do. */
export function conversationPolicy(config: Config, conversationKey: string): ResolvedPolicy {
  const ref = decodeConversationKey(conversationKey);
  return resolvePolicy(config, {
    platform: ref.platform,
    chatId: ref.chatId,
    ...(ref.threadId ? { threadId: ref.threadId } : {}),
    userId: '',
  });
}

/**
 * The channel whose spending a conversation's daily budget counts (`budget.conversationUsdPerDay`
 * is a channel-level setting: it covers all of a channel's threads): a thread's channel or chat,
 * or the conversation itself.
 */
export function budgetChannelOf(conversationKey: string): string {
  return spaceKeyOf(conversationKey);
}

/** The models `/model` may choose under `policy`: its `model` first, then its `models`. */
export function allowedModels(policy: Pick<ResolvedPolicy, 'model' | 'models'>): string[] {
  return [...new Set([...(policy.model ? [policy.model] : []), ...(policy.models ?? [])])];
}

/** The policy with the model chosen in chat, while the policy still allows that model. */
export function withModelChoice(policy: ResolvedPolicy, chosen: string | undefined): ResolvedPolicy {
  return chosen && allowedModels(policy).includes(chosen) ? { ...policy, model: chosen } : policy;
}

const ACCESS_ORDER: AccessMode[] = ['chat-only', 'read-only', 'full'];

/** The lower of two access modes. */
export function lowerAccess(a: AccessMode, b: AccessMode): AccessMode {
  return ACCESS_ORDER[Math.min(ACCESS_ORDER.indexOf(a), ACCESS_ORDER.indexOf(b))]!;
}

const both = (a: string[] | undefined, b: string[] | undefined): string[] | undefined =>
  a && b ? a.filter((x) => b.includes(x)) : (a ?? b);

/**
 * The narrower of two policies: the lower access, the union of the denies, the intersection of
 * the allows (undefined = no allow list), the hosts both allow, and the models both permit. The
 * model is `a`'s when `b` permits it (its `model` or one of its `models`), else `b`'s.
 */
export function narrowPolicy(a: PolicyLimits, b: PolicyLimits): PolicyLimits {
  const allow = both(a.tools.allow, b.tools.allow);
  const deny =
    a.tools.deny || b.tools.deny ? [...new Set([...(a.tools.deny ?? []), ...(b.tools.deny ?? [])])] : undefined;
  const bPermits = (m: string) => !b.model || m === b.model || !!b.models?.includes(m);
  const model = a.model && bPermits(a.model) ? a.model : (b.model ?? a.model);
  const models = both(a.models, b.models)?.filter((m) => bPermits(m));
  const approvals = stricterApprovals(a.approvals, b.approvals);
  return {
    access: lowerAccess(a.access, b.access),
    tools: { ...(allow ? { allow } : {}), ...(deny ? { deny } : {}) },
    network: { allow: intersectHosts(a.network.allow, b.network.allow) },
    ...(model ? { model } : {}),
    ...(models ? { models } : {}),
    ...(approvals ? { approvals } : {}),
  };
}

const union = (a: string[] | undefined, b: string[] | undefined): string[] | undefined =>
  a || b ? [...new Set([...(a ?? []), ...(b ?? [])])] : undefined;

/**
 * Who may approve under both rules: when both list people, only those both accept (possibly nobody,
 * and then nothing guarded can be approved); otherwise the first that says, as before.
 */
function bothApprovers(a: ApprovalRules['approvers'], b: ApprovalRules['approvers']): ApprovalRules['approvers'] {
  return Array.isArray(a) && Array.isArray(b) ? a.filter((x) => b.includes(x)) : (a ?? b);
}

/**
 * Approval rules that guard everything either guards: the levels and tools of both, afterUntrusted
 * if either says so, escalation only if both allow it, the shorter timeout, the approvers both accept.
 */
export function stricterApprovals(
  a: ApprovalRules | undefined,
  b: ApprovalRules | undefined,
): ApprovalRules | undefined {
  if (!a || !b) return a ?? b;
  const levels = union(a.levels, b.levels) as ApprovalRules['levels'];
  const tools = union(a.tools, b.tools);
  const timeoutMs = Math.min(a.timeoutMs ?? Infinity, b.timeoutMs ?? Infinity);
  const approvers = bothApprovers(a.approvers, b.approvers);
  return {
    ...(levels ? { levels } : {}),
    ...(tools ? { tools } : {}),
    ...(approvers ? { approvers } : {}),
    ...(Number.isFinite(timeoutMs) ? { timeoutMs } : {}),
    ...(a.afterUntrusted || b.afterUntrusted ? { afterUntrusted: true } : {}),
    ...(a.allowEscalation && b.allowEscalation ? { allowEscalation: true } : {}),
  };
}

/** Decides whether `msg` reaches the agent under `policy`. */
export function admit(
  policy: ResolvedPolicy,
  msg: Pick<InboundMessage, 'userId' | 'signedInAs' | 'chatId' | 'isDirect' | 'mentionsBot' | 'text'>,
  opts: { replyToStrangers: boolean },
): Admission {
  if (
    policy.allowFrom &&
    !policy.allowFrom.includes(msg.signedInAs ? decodeUserKey(msg.signedInAs).userId : msg.userId) &&
    !policy.allowFrom.includes(msg.chatId) &&
    !policy.allowFrom.includes('*')
  ) {
    // In groups a stranger who did not address the bot gets silence either way.
    return {
      admitted: false,
      reason: 'not-allowed',
      reply: opts.replyToStrangers && (msg.isDirect || msg.mentionsBot),
    };
  }
  if (!msg.isDirect && policy.requireMention && !msg.mentionsBot)
    return { admitted: false, reason: 'not-addressed', reply: false };
  return { admitted: true };
}
