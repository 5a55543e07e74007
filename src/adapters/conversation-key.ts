// Conversation keys: one string per conversation, platform first
// (`telegram:-100123:45`). The only place that encodes and decodes them, and reply targets
// (where in a conversation an answer goes), which are built from keys and messages and stored.
import { IdentityError, isPlatform } from './identity.ts';
import type { InboundMessage, OutboundTarget, Platform } from './types.ts';

/** A conversation key: the platform, then its ids (see encodeConversationKey). A string at runtime. */
export type ConversationKey = `${Platform}:${string}`;

/** Where in a conversation a reply goes (a chat, its thread, the message answered). Plain JSON. */
export type ReplyTarget = OutboundTarget;

/** A decoded conversation key. */
export interface ConversationRef {
  platform: Platform;
  /** telegram: chat id; discord: channel id; slack: channel id; web/terminal: session id. */
  chatId: string;
  /** telegram: forum topic id; discord: thread id; slack: thread ts. */
  threadId?: string;
  /** discord: guild id or `dm`; slack: team id. */
  scope?: string;
}

/** A conversation key that cannot be decoded. */
export class ConversationKeyError extends IdentityError {
  constructor(key: string, why: string) {
    super('bad-conversation-key', `bad conversation key ${JSON.stringify(key)}: ${why}`);
  }
}

// Ids are platform ids: digits, letters, dots, dashes, underscores. Colons separate parts.
const ID = /^[A-Za-z0-9._-]+$/;

function part(key: string, value: string | undefined, what: string): string {
  if (value === undefined || !ID.test(value))
    throw new ConversationKeyError(key, `${what} must be a platform id (letters, digits, . _ -)`);
  return value;
}

/**
 * Encodes a conversation reference: `telegram:<chat>[:<topic>]`, `discord:<guild|dm>:<channel>[:<thread>]`,
 * `slack:<team>:<channel>[:<ts>]`, `web:<session>`.
 */
export function encodeConversationKey(ref: ConversationRef): ConversationKey {
  const parts: string[] = [ref.platform];
  if (ref.platform === 'discord' || ref.platform === 'slack')
    parts.push(ref.scope ?? (ref.platform === 'discord' ? 'dm' : '_'));
  parts.push(ref.chatId);
  if (ref.threadId) parts.push(ref.threadId);
  const key = parts.join(':') as ConversationKey;
  decodeConversationKey(key); // validates every part
  return key;
}

/** Decodes a key; throws ConversationKeyError naming what is wrong. */
export function decodeConversationKey(key: string): ConversationRef {
  const [platform, ...rest] = key.split(':');
  switch (platform) {
    case 'telegram': {
      if (rest.length < 1 || rest.length > 2)
        throw new ConversationKeyError(key, 'expected telegram:<chatId>[:<topicId>]');
      const chatId = part(key, rest[0], 'chat id');
      // A thread part, when there is one, must be an id: `telegram:1:` is not another name for `telegram:1`.
      return rest.length === 2 ? { platform, chatId, threadId: part(key, rest[1], 'topic id') } : { platform, chatId };
    }
    case 'discord':
    case 'slack': {
      const shape =
        platform === 'discord'
          ? 'discord:<guildId|dm>:<channelId>[:<threadId>]'
          : 'slack:<teamId>:<channelId>[:<threadTs>]';
      if (rest.length < 2 || rest.length > 3) throw new ConversationKeyError(key, `expected ${shape}`);
      const scope = part(key, rest[0], platform === 'discord' ? 'guild id' : 'team id');
      const chatId = part(key, rest[1], 'channel id');
      return rest.length === 3
        ? { platform, scope, chatId, threadId: part(key, rest[2], 'thread id') }
        : { platform, scope, chatId };
    }
    case 'web':
    case 'terminal': {
      if (rest.length !== 1) throw new ConversationKeyError(key, `expected ${platform}:<sessionId>`);
      return { platform, chatId: part(key, rest[0], 'session id') };
    }
    default:
      throw new ConversationKeyError(key, 'unknown platform (expected telegram, discord, slack, web or terminal)');
  }
}

/**
 * The platform part of a key: the text before the first `:` (the whole key when it has none).
 * Deliberately not a full decode: routing a stored entry or listing sessions must not throw on
 * a key an older version wrote; decodeConversationKey is the check. A key whose first part is
 * no platform boxbot speaks (`irc:#chan`, from a hand-edited store) gives that text, which
 * names no adapter or queue: lookups by it find nothing, as they should.
 * @example platformOf('slack:T1:C9:1712.33') === 'slack'
 */
export function platformOf(key: string): Platform {
  const i = key.indexOf(':');
  // Typed as what well-formed keys hold; the text of a foreign key only ever misses in lookups.
  return (i < 0 ? key : key.slice(0, i)) as Platform;
}

/**
 * The space a conversation is in: the channel or chat of a thread (its key without the thread), or
 * the conversation itself. Channel-level settings (a daily budget) cover the whole space.
 * @example spaceKeyOf('slack:T1:C9:1712.33') === 'slack:T1:C9'
 */
export function spaceKeyOf(key: string): string {
  const { threadId: _thread, ...space } = decodeConversationKey(key);
  return encodeConversationKey(space);
}

/** The reply target of a conversation (for scheduled jobs and resumed outbox entries). */
export function targetOf(key: string): ReplyTarget {
  const ref = decodeConversationKey(key);
  return { conversationKey: key, chatId: ref.chatId, ...(ref.threadId ? { threadId: ref.threadId } : {}) };
}

/** Where the answer to `msg` goes: its chat and thread, replying to it. */
export function replyTargetOf(
  msg: Pick<InboundMessage, 'conversationKey' | 'chatId' | 'threadId' | 'messageId'>,
): ReplyTarget {
  return {
    conversationKey: msg.conversationKey,
    chatId: msg.chatId,
    ...(msg.threadId ? { threadId: msg.threadId } : {}),
    ...(msg.messageId ? { replyToMessageId: msg.messageId } : {}),
  };
}

/**
 * A stored reply target (JSON read back from the store) as a ReplyTarget; throws IdentityError
 * `bad-reply-target` naming the field that is wrong. Its key must name a platform boxbot speaks;
 * the rest of the key is not decoded (a key an older version wrote still routes). Fields a later
 * version may add are dropped, not refused.
 */
export function parseReplyTarget(value: unknown): ReplyTarget {
  const bad = (why: string) => new IdentityError('bad-reply-target', `bad reply target: ${why}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('expected an object');
  const t = value as Record<string, unknown>;
  const text = (field: string, optional: boolean): string | undefined => {
    const v = t[field];
    if (v === undefined && optional) return undefined;
    if (typeof v !== 'string' || v === '') throw bad(`${field} must be a non-empty string, got ${JSON.stringify(v)}`);
    return v;
  };
  const conversationKey = text('conversationKey', false)!;
  if (!isPlatform(platformOf(conversationKey)))
    throw bad(`conversationKey ${JSON.stringify(conversationKey)} names no platform boxbot speaks`);
  const chatId = text('chatId', false)!;
  const threadId = text('threadId', true);
  const replyToMessageId = text('replyToMessageId', true);
  return {
    conversationKey,
    chatId,
    ...(threadId !== undefined ? { threadId } : {}),
    ...(replyToMessageId !== undefined ? { replyToMessageId } : {}),
  };
}
