// Slack Events API payload (the `event_callback` body, identical over HTTP and Socket Mode) →
// InboundMessage. Pure and defensive: anything unexpected is an `ignored` or `malformed` result,
// never an exception.
import { encodeConversationKey } from '../conversation-key.ts';
import { platformOrder } from '../platform-order.ts';
import type { Attachment, AttachmentKind, InboundMessage, NormalizeResult } from '../types.ts';
import { unescapeSlackText } from './format.ts';

/** Who the bot is (from auth.test) and when the event arrived. */
export interface SlackNormalizeContext {
  botUserId?: string;
  /** Fallback team when the payload carries none. */
  teamId?: string;
  receivedAt: Date;
}

// Subtypes that are still a person talking; every other subtype (message_changed, channel_join,
// bot_message, ...) is a notification, not a message for the agent.
const USER_SUBTYPES = new Set(['file_share', 'thread_broadcast']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
// Slack ids and timestamps: what conversation keys accept.
const isId = (v: string | undefined): v is string => v !== undefined && /^[A-Za-z0-9._-]+$/.test(v);

/**
 * Normalizes one Events API body. DMs (`message` with channel_type `im`) are direct; in channels,
 * `app_mention` is addressed to the bot and a plain `message` is not. A channel `message` that
 * mentions the bot is ignored, because Slack delivers the same message again as `app_mention`.
 * Channel conversations are threads: `slack:<team>:<channel>:<thread_ts or ts>`.
 */
export function normalizeSlackEvent(body: unknown, ctx: SlackNormalizeContext): NormalizeResult {
  if (!isObj(body)) return { kind: 'malformed', reason: 'body is not an object' };
  if (body.type !== 'event_callback') return { kind: 'ignored', reason: `body type ${String(body.type)}` };
  const event = body.event;
  if (!isObj(event) || typeof event.type !== 'string')
    return { kind: 'malformed', reason: 'event_callback without an event' };
  if (event.type !== 'message' && event.type !== 'app_mention')
    return { kind: 'ignored', reason: `event type ${event.type}` };

  const subtype = str(event.subtype);
  if (subtype !== undefined && !USER_SUBTYPES.has(subtype))
    return { kind: 'ignored', reason: `message subtype ${subtype}` };
  if (event.hidden === true) return { kind: 'ignored', reason: 'hidden message' };
  if (str(event.bot_id) !== undefined || isObj(event.bot_profile))
    return { kind: 'ignored', reason: 'message from a bot' };

  const channel = str(event.channel);
  const user = str(event.user);
  const ts = str(event.ts);
  const team = str(body.team_id) ?? str(event.team) ?? ctx.teamId;
  if (!isId(channel) || !isId(ts) || !isId(team))
    return { kind: 'malformed', reason: 'message without a valid channel, ts or team' };
  if (user === undefined) return { kind: 'malformed', reason: 'message without a user' };
  if (user === ctx.botUserId) return { kind: 'ignored', reason: 'our own message' };
  if (event.text !== undefined && typeof event.text !== 'string')
    return { kind: 'malformed', reason: 'text is not a string' };
  const rawText = (event.text as string | undefined) ?? '';
  const threadTs = str(event.thread_ts);
  if (threadTs !== undefined && !isId(threadTs)) return { kind: 'malformed', reason: 'bad thread_ts' };

  const mentionRe = ctx.botUserId ? new RegExp(`<@${escapeRe(ctx.botUserId)}(?:\\|[^>]*)?>`, 'g') : undefined;
  const mentioned = mentionRe?.test(rawText) === true;
  // Slack sends no channel_type on app_mention; DM channel ids start with D.
  const isDirect =
    event.type === 'message' && typeof event.channel_type === 'string'
      ? event.channel_type === 'im'
      : channel.startsWith('D');

  if (event.type === 'app_mention' && isDirect)
    return { kind: 'ignored', reason: 'app_mention in a DM (the message event carries it)' };
  if (event.type === 'message' && !isDirect && mentioned)
    return { kind: 'ignored', reason: 'channel message mentioning the bot (the app_mention event carries it)' };

  // Channels: each mention starts or continues a thread; DMs: one conversation unless threaded.
  const threadId = isDirect ? threadTs : (threadTs ?? ts);
  const conversationKey = encodeConversationKey({
    platform: 'slack',
    scope: team,
    chatId: channel,
    ...(threadId ? { threadId } : {}),
  });
  const eventId = str(body.event_id);
  const text = toPlainText(mentionRe ? rawText.replace(mentionRe, ' ') : rawText);

  const order = platformOrder(ts);
  const message: InboundMessage = {
    id: eventId ? `slack:${eventId}` : `slack:${channel}:${ts}`,
    platform: 'slack',
    ...(order ? { order } : {}),
    conversationKey,
    chatId: channel,
    ...(threadId ? { threadId } : {}),
    messageId: ts,
    userId: user,
    userName: userName(event) ?? user,
    text,
    isDirect,
    mentionsBot: event.type === 'app_mention' || mentioned,
    attachments: attachments(event.files),
    receivedAt: ctx.receivedAt.toISOString(),
    raw: body,
  };
  return { kind: 'message', message };
}

/**
 * Slack's markup in user text made readable: `<@U1>` → `@U1`, `<#C1|general>` → `#general`, `<url|label>` →
 * `label (url)`, entities decoded.
 */
export function toPlainText(text: string): string {
  const plain = text.replace(/<([^<>]*)>/g, (_m, inner: string) => {
    const [target = '', label] = inner.split('|', 2);
    if (target.startsWith('@')) return label ? `@${label}` : target;
    if (target.startsWith('#')) return label ? `#${label}` : target;
    if (target.startsWith('!')) return label ?? `@${target.slice(1).split('^')[0]}`;
    return label && label !== target ? `${label} (${target})` : target;
  });
  return unescapeSlackText(plain)
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

function userName(event: Obj): string | undefined {
  const p = event.user_profile;
  if (!isObj(p)) return undefined;
  return str(p.display_name) ?? str(p.real_name) ?? str(p.name);
}

function attachments(files: unknown): Attachment[] {
  if (!Array.isArray(files)) return [];
  const out: Attachment[] = [];
  for (const f of files) {
    if (!isObj(f) || !str(f.id)) continue;
    const name = str(f.name);
    const mimeType = str(f.mimetype);
    const url = str(f.url_private_download) ?? str(f.url_private);
    out.push({
      id: f.id as string,
      kind: kindOf(f, mimeType),
      ...(name ? { name } : {}),
      ...(mimeType ? { mimeType } : {}),
      ...(typeof f.size === 'number' ? { size: f.size } : {}),
      ...(url ? { url } : {}),
    });
  }
  return out;
}

/** Slack's recorded audio clips are voice notes; otherwise the declared type decides. */
function kindOf(f: Obj, mimeType: string | undefined): AttachmentKind {
  if (f.subtype === 'slack_audio') return 'voice';
  const type = mimeType ?? '';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  return 'document';
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
