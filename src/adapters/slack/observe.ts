// Slack events → ChannelEvents for the channel log: every message in a channel the bot is in
// (addressed to it or not, thread replies included), `message_changed` and `message_deleted`.
// Pure and defensive like normalize.ts: anything unexpected is simply not observed. DMs are never
// observed (a log is of a channel), nor the bot's own echoes (recorded where they are sent).
import type { ChannelEvent } from '../channel-event.ts';
import { slackTsTime } from '../channel-event.ts';
import { encodeConversationKey } from '../conversation-key.ts';
import { toPlainText } from './normalize.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const isId = (v: string | undefined): v is string => v !== undefined && /^[A-Za-z0-9._-]+$/.test(v);

// Subtypes that are not something said: joins, topic changes and the like.
const SAID = new Set([undefined, 'file_share', 'thread_broadcast', 'bot_message', 'me_message']);

/** Who the bot is, and the fallback team. */
export interface SlackObserveContext {
  botUserId?: string;
  botId?: string;
  teamId?: string;
}

/** The channel event of one Events API body, or undefined when it is none. */
export function slackChannelEvent(body: unknown, ctx: SlackObserveContext): ChannelEvent | undefined {
  if (!isObj(body) || body.type !== 'event_callback' || !isObj(body.event)) return undefined;
  const event = body.event;
  if (event.type !== 'message' && event.type !== 'app_mention') return undefined;
  const channelId = str(event.channel);
  const team = str(body.team_id) ?? str(event.team) ?? ctx.teamId;
  if (!isId(channelId) || !isId(team)) return undefined;
  if (event.channel_type === 'im' || (event.channel_type === undefined && channelId.startsWith('D'))) return undefined;
  const channel = encodeConversationKey({ platform: 'slack', scope: team, chatId: channelId });
  const subtype = str(event.subtype);
  if (subtype === 'message_deleted') {
    const ts = str(event.deleted_ts);
    if (!isId(ts)) return undefined;
    const at = slackTsTime(ts);
    return { kind: 'delete', channel, messageId: ts, ...(at ? { at } : {}) };
  }
  if (subtype === 'message_changed') {
    const m = event.message;
    if (!isObj(m) || own(m, ctx)) return undefined;
    const ts = str(m.ts);
    const at = ts ? slackTsTime(ts) : undefined;
    if (!isId(ts) || !at) return undefined;
    // Slack reports a deleted thread parent that keeps its replies as a change to a tombstone.
    if (m.subtype === 'tombstone') return { kind: 'delete', channel, messageId: ts, at };
    const edited = isObj(m.edited) ? str(m.edited.ts) : undefined;
    const editedAt = (edited && slackTsTime(edited)) ?? new Date().toISOString();
    const thread = threadOf(m, ts);
    const user = str(m.user);
    return {
      kind: 'edit',
      channel,
      messageId: ts,
      ...(thread ? { threadId: thread } : {}),
      at,
      editedAt,
      text: toPlainText(typeof m.text === 'string' ? m.text : ''),
      files: fileNames(m.files),
      ...(user ? { userId: user, userName: nameOf(m) ?? user } : {}),
    };
  }
  if (!SAID.has(subtype) || event.hidden === true || own(event, ctx)) return undefined;
  const ts = str(event.ts);
  const at = ts ? slackTsTime(ts) : undefined;
  if (!isId(ts) || !at) return undefined;
  const user = str(event.user) ?? str(event.bot_id);
  if (!user) return undefined;
  const thread = threadOf(event, ts);
  return {
    kind: 'message',
    channel,
    messageId: ts,
    ...(thread ? { threadId: thread } : {}),
    at,
    userId: user,
    userName: nameOf(event) ?? user,
    text: toPlainText(typeof event.text === 'string' ? event.text : ''),
    files: fileNames(event.files),
    // Another bot or an integration (the bot's own posts are recorded where they are sent).
    ...(str(event.bot_id) || subtype === 'bot_message' ? { bot: true } : {}),
  };
}

/** The bot's own message (its user, or its bot id). */
function own(m: Obj, ctx: SlackObserveContext): boolean {
  return (
    (ctx.botUserId !== undefined && m.user === ctx.botUserId) || (ctx.botId !== undefined && m.bot_id === ctx.botId)
  );
}

/** The thread a message is a reply in: its thread_ts unless it is the parent itself. */
function threadOf(m: Obj, ts: string): string | undefined {
  const thread = str(m.thread_ts);
  return isId(thread) && thread !== ts ? thread : undefined;
}

function nameOf(m: Obj): string | undefined {
  const p = m.user_profile;
  if (isObj(p)) return str(p.display_name) ?? str(p.real_name) ?? str(p.name);
  return isObj(m.bot_profile) ? str(m.bot_profile.name) : str(m.username);
}

function fileNames(files: unknown): string[] {
  if (!Array.isArray(files)) return [];
  return files.flatMap((f) => (isObj(f) && (str(f.name) ?? str(f.title)) ? [(str(f.name) ?? str(f.title))!] : []));
}
