// Discord dispatches → ChannelEvents for the channel log: guild messages (addressed to the bot or
// not; a thread's messages under its parent channel), MESSAGE_UPDATE and MESSAGE_DELETE. DMs are
// never observed, nor the bot's own live messages (recorded where they are sent); other bots' and
// integrations' messages are, marked as bots.
import type { ChannelEvent } from '../channel-event.ts';
import { snowflakeTime } from '../channel-event.ts';
import { encodeConversationKey } from '../conversation-key.ts';
import type { DiscordMessage } from './normalize.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const SNOWFLAKE = /^\d{1,20}$/;
const snowflake = (v: unknown): string | undefined => (typeof v === 'string' && SNOWFLAKE.test(v) ? v : undefined);

/** Where a message was posted: its guild, and the thread's parent when it is in a thread. */
export interface DiscordPlace {
  guildId: string;
  channelId: string;
  threadParentId?: string;
}

function placeOf(p: DiscordPlace): { channel: string; threadId?: string } {
  const inThread = p.threadParentId !== undefined && p.threadParentId !== p.channelId;
  return {
    channel: encodeConversationKey({
      platform: 'discord',
      scope: p.guildId,
      chatId: inThread ? p.threadParentId! : p.channelId,
    }),
    ...(inThread ? { threadId: p.channelId } : {}),
  };
}

/**
 * A checked guild message (MESSAGE_CREATE, or a read from history) as a channel event; marked as a
 * bot's when boxbot (`botId`), another bot or a webhook posted it.
 */
export function discordMessageEvent(m: DiscordMessage, place: DiscordPlace, botId?: string): ChannelEvent | undefined {
  const at = snowflakeTime(m.id);
  if (!at || (m.content === '' && m.attachments.length === 0)) return undefined;
  return {
    kind: 'message',
    ...placeOf(place),
    messageId: m.id,
    at,
    userId: m.author.id,
    userName: m.memberNick ?? m.author.globalName ?? m.author.username,
    text: readable(m.content, m.mentions),
    files: m.attachments.map((a) => a.name ?? 'file'),
    ...((botId !== undefined && m.author.id === botId) || m.author.bot || m.webhookId ? { bot: true } : {}),
  };
}

/** MESSAGE_UPDATE data as an edit (undefined: no content change, e.g. an embed resolved). */
export function discordUpdateEvent(d: unknown, place: DiscordPlace, botId: string): ChannelEvent | undefined {
  if (!isObj(d) || typeof d.content !== 'string') return undefined;
  const id = snowflake(d.id);
  const at = id ? snowflakeTime(id) : undefined;
  if (!id || !at) return undefined;
  const author = isObj(d.author) ? d.author : undefined;
  if (author?.id === botId) return undefined;
  const edited = typeof d.edited_timestamp === 'string' ? Date.parse(d.edited_timestamp) : Number.NaN;
  const mentions = Array.isArray(d.mentions)
    ? d.mentions.flatMap((u) =>
        isObj(u) && snowflake(u.id) ? [{ id: u.id as string, name: String(u.global_name ?? u.username ?? u.id) }] : [],
      )
    : [];
  const files = Array.isArray(d.attachments)
    ? d.attachments.flatMap((a) => (isObj(a) && typeof a.filename === 'string' ? [a.filename] : []))
    : undefined;
  const member = isObj(d.member) ? d.member : undefined;
  const name =
    (typeof member?.nick === 'string' && member.nick) ||
    (typeof author?.global_name === 'string' && author.global_name) ||
    (typeof author?.username === 'string' && author.username) ||
    undefined;
  return {
    kind: 'edit',
    ...placeOf(place),
    messageId: id,
    at,
    editedAt: Number.isNaN(edited) ? new Date().toISOString() : new Date(edited).toISOString(),
    text: readable(d.content, mentions),
    ...(files ? { files } : {}),
    ...(author && snowflake(author.id) ? { userId: author.id as string, userName: name || (author.id as string) } : {}),
    ...(author?.bot === true || snowflake(d.webhook_id) ? { bot: true } : {}),
  };
}

/** MESSAGE_DELETE data as a deletion. */
export function discordDeleteEvent(d: unknown, place: DiscordPlace): ChannelEvent | undefined {
  const id = isObj(d) ? snowflake(d.id) : undefined;
  if (!id) return undefined;
  const at = snowflakeTime(id);
  return { kind: 'delete', channel: placeOf(place).channel, messageId: id, ...(at ? { at } : {}) };
}

/** Mentions written as `@name`, as a person reads them. */
function readable(content: string, mentions: { id: string; name: string }[]): string {
  const names = new Map(mentions.map((u) => [u.id, u.name]));
  return content.replace(/<@!?(\d+)>/g, (whole, id: string) => (names.has(id) ? `@${names.get(id)}` : whole)).trim();
}
