// Discord MESSAGE_CREATE dispatch data → InboundMessage. Pure and defensive: a payload of the
// wrong shape is reported (never thrown), and messages from the bot itself, other bots and
// system messages are skipped with a reason.
import { encodeConversationKey } from '../conversation-key.ts';
import { platformOrder } from '../platform-order.ts';
import type { Attachment, AttachmentKind, NormalizeResult } from '../types.ts';

/** The fields of a MESSAGE_CREATE the adapter relies on, checked. */
export interface DiscordMessage {
  id: string;
  channelId: string;
  guildId?: string;
  /** Discord's channel type when the payload carries it (1 DM, 10/11/12 threads). */
  channelType?: number;
  type: number;
  content: string;
  author: { id: string; username: string; globalName?: string; bot: boolean };
  memberNick?: string;
  webhookId?: string;
  mentions: { id: string; name: string }[];
  mentionRoles: string[];
  /** Author id of the message this one replies to. */
  repliedToAuthorId?: string;
  attachments: Attachment[];
  raw: unknown;
}

/** What normalization needs besides the payload. */
export interface NormalizeContext {
  botId: string;
  /** The parent channel when the message was posted in a thread. */
  threadParentId?: string;
  /** Roles that stand for the bot in this guild (its managed role); mentioning one mentions the bot. */
  botRoleIds?: readonly string[];
  /** Deliver other bots' messages (the bot's own messages are always skipped). */
  allowBots?: boolean;
  receivedAt?: Date;
}

/** Why a well-formed message is not delivered. */
export type SkipReason = 'own-message' | 'bot-author' | 'system-message' | 'no-content';

/** The outcome of normalizing one dispatch. */
export type DiscordNormalizeResult = NormalizeResult<SkipReason>;

/** Channel types that are threads (announcement, public, private). */
export const THREAD_CHANNEL_TYPES: ReadonlySet<number> = new Set([10, 11, 12]);
/** Message types that carry user text: DEFAULT and REPLY. */
const USER_MESSAGE_TYPES = new Set([0, 19]);
const SNOWFLAKE = /^\d{1,20}$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const snowflake = (v: unknown): string | undefined => (typeof v === 'string' && SNOWFLAKE.test(v) ? v : undefined);

/** Checks a MESSAGE_CREATE `d`; returns the message or a sentence saying what is wrong. */
export function parseMessageCreate(d: unknown): DiscordMessage | string {
  if (!isObj(d)) return 'dispatch data is not an object';
  const id = snowflake(d.id);
  const channelId = snowflake(d.channel_id);
  if (!id) return 'missing or invalid message id';
  if (!channelId) return 'missing or invalid channel_id';
  if (d.guild_id !== undefined && !snowflake(d.guild_id)) return 'invalid guild_id';
  const a = d.author;
  if (!isObj(a) || !snowflake(a.id) || typeof a.username !== 'string') return 'missing or invalid author';
  if (d.content !== undefined && typeof d.content !== 'string') return 'content is not a string';
  const mentions: DiscordMessage['mentions'] = [];
  if (Array.isArray(d.mentions)) {
    for (const u of d.mentions) {
      if (isObj(u) && snowflake(u.id))
        mentions.push({ id: u.id as string, name: str(u.global_name) ?? str(u.username) ?? (u.id as string) });
    }
  }
  const ref = d.referenced_message;
  const repliedToAuthorId = isObj(ref) && isObj(ref.author) ? snowflake(ref.author.id) : undefined;
  const member = isObj(d.member) ? d.member : undefined;
  return {
    id,
    channelId,
    ...(d.guild_id !== undefined ? { guildId: d.guild_id as string } : {}),
    ...(typeof d.channel_type === 'number' ? { channelType: d.channel_type } : {}),
    type: typeof d.type === 'number' ? d.type : 0,
    content: (d.content as string | undefined) ?? '',
    author: {
      id: a.id as string,
      username: a.username,
      ...(str(a.global_name) ? { globalName: a.global_name as string } : {}),
      bot: a.bot === true,
    },
    ...(member && str(member.nick) ? { memberNick: member.nick as string } : {}),
    ...(snowflake(d.webhook_id) ? { webhookId: d.webhook_id as string } : {}),
    mentions,
    mentionRoles: Array.isArray(d.mention_roles)
      ? d.mention_roles.filter((r): r is string => typeof r === 'string')
      : [],
    ...(repliedToAuthorId ? { repliedToAuthorId } : {}),
    attachments: attachmentsOf(d.attachments),
    raw: d,
  };
}

/** Turns a checked message into an InboundMessage, or says why it is skipped. */
export function toInboundMessage(m: DiscordMessage, ctx: NormalizeContext): DiscordNormalizeResult {
  if (m.author.id === ctx.botId) return { kind: 'ignored', reason: 'own-message' };
  if ((m.author.bot || m.webhookId) && !ctx.allowBots) return { kind: 'ignored', reason: 'bot-author' };
  if (!USER_MESSAGE_TYPES.has(m.type)) return { kind: 'ignored', reason: 'system-message' };
  // Without the Message Content intent Discord sends guild messages with empty bodies.
  if (m.content === '' && m.attachments.length === 0) return { kind: 'ignored', reason: 'no-content' };
  const botRoles = ctx.botRoleIds ?? [];
  const isDirect = m.guildId === undefined;
  const mentionsBot =
    m.mentions.some((u) => u.id === ctx.botId) ||
    new RegExp(`<@!?${ctx.botId}>`).test(m.content) ||
    m.repliedToAuthorId === ctx.botId ||
    m.mentionRoles.some((r) => botRoles.includes(r));
  const inThread = !isDirect && ctx.threadParentId !== undefined && ctx.threadParentId !== m.channelId;
  const chatId = inThread ? ctx.threadParentId! : m.channelId;
  const conversationKey = encodeConversationKey({
    platform: 'discord',
    scope: isDirect ? 'dm' : m.guildId!,
    chatId,
    ...(inThread ? { threadId: m.channelId } : {}),
  });
  const order = platformOrder(m.id);
  return {
    kind: 'message',
    message: {
      id: `discord:${m.id}`,
      platform: 'discord',
      ...(order ? { order } : {}),
      conversationKey,
      chatId,
      ...(inThread ? { threadId: m.channelId } : {}),
      messageId: m.id,
      userId: m.author.id,
      userName: m.memberNick ?? m.author.globalName ?? m.author.username,
      text: cleanText(m.content, ctx.botId, botRoles, m.mentions),
      isDirect,
      mentionsBot,
      attachments: m.attachments,
      receivedAt: (ctx.receivedAt ?? new Date()).toISOString(),
      raw: m.raw,
    },
  };
}

/** Both steps at once (fixtures and tests): payload `d` → result. */
export function normalizeMessageCreate(d: unknown, ctx: NormalizeContext): DiscordNormalizeResult {
  const parsed = parseMessageCreate(d);
  return typeof parsed === 'string' ? { kind: 'malformed', reason: parsed } : toInboundMessage(parsed, ctx);
}

/**
 * Removes the bot's mention (`<@id>`, `<@!id>`, its role `<@&id>`) and writes other users'
 * mentions as `@name`, so the agent reads what a person would.
 */
export function cleanText(
  content: string,
  botId: string,
  botRoleIds: readonly string[],
  mentions: DiscordMessage['mentions'],
): string {
  const self = [`<@!?${botId}>`, ...botRoleIds.map((r) => `<@&${r}>`)].join('|');
  let text = content
    .replace(new RegExp(`^\\s*(?:${self})[\\s,:;]*`), '')
    .replace(new RegExp(`[ \\t]*(?:${self})(?=[,.!?;:])`, 'g'), '')
    .replace(new RegExp(`[ \\t]*(?:${self})[ \\t]*`, 'g'), ' ');
  const names = new Map(mentions.map((u) => [u.id, u.name]));
  text = text.replace(/<@!?(\d+)>/g, (whole, id: string) => (names.has(id) ? `@${names.get(id)}` : whole));
  return text.trim();
}

function attachmentsOf(v: unknown): Attachment[] {
  if (!Array.isArray(v)) return [];
  const out: Attachment[] = [];
  for (const a of v) {
    if (!isObj(a) || !snowflake(a.id)) continue;
    out.push({
      id: a.id as string,
      kind: kindOf(a),
      ...(str(a.filename) ? { name: a.filename as string } : {}),
      ...(str(a.content_type) ? { mimeType: a.content_type as string } : {}),
      ...(typeof a.size === 'number' ? { size: a.size } : {}),
      ...(str(a.url) ? { url: a.url as string } : {}),
    });
  }
  return out;
}

/** A voice message's attachment has a waveform; otherwise the declared content type decides. */
function kindOf(a: Record<string, unknown>): AttachmentKind {
  if (typeof a.waveform === 'string') return 'voice';
  const type = typeof a.content_type === 'string' ? a.content_type : '';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  return 'document';
}
