// Conversation keys: one string per conversation, platform first
// (`telegram:-100123:45`). The only place that encodes and decodes them.
import { BoxbotError } from '../core/errors.ts';
import type { OutboundTarget, Platform } from './types.ts';

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
export class ConversationKeyError extends BoxbotError {
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
export function encodeConversationKey(ref: ConversationRef): string {
  const parts: string[] = [ref.platform];
  if (ref.platform === 'discord' || ref.platform === 'slack')
    parts.push(ref.scope ?? (ref.platform === 'discord' ? 'dm' : '_'));
  parts.push(ref.chatId);
  if (ref.threadId) parts.push(ref.threadId);
  const key = parts.join(':');
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
 * a key an older version wrote; decodeConversationKey is the check.
 * @example platformOf('slack:T1:C9:1712.33') === 'slack'
 */
export function platformOf(key: string): string {
  const i = key.indexOf(':');
  return i < 0 ? key : key.slice(0, i);
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

/** The outbound target of a conversation (for scheduled jobs and resumed outbox entries). */
export function targetOf(key: string): OutboundTarget {
  const ref = decodeConversationKey(key);
  return { conversationKey: key, chatId: ref.chatId, ...(ref.threadId ? { threadId: ref.threadId } : {}) };
}
