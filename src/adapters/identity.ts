// Who is speaking, as one typed string: a platform name and a user key (`telegram:4242`), with one
// encode and one decode each and the error both raise. Conversation keys and reply targets are
// in conversation-key.ts. Keys stay plain strings at runtime (in the store, in config `admins`).
import { BoxbotError } from '../core/errors.ts';
import type { InboundMessage, Platform } from './types.ts';

/** The platforms boxbot speaks, in the order they are listed to users. */
export const PLATFORMS: readonly Platform[] = ['telegram', 'discord', 'slack', 'web', 'terminal'];

/** Why an identity could not be read. */
export type IdentityErrorCode = 'unknown-platform' | 'bad-conversation-key' | 'bad-user-key' | 'bad-reply-target';

/** A platform name, user key, conversation key or reply target that cannot be decoded. */
export class IdentityError extends BoxbotError<IdentityErrorCode> {
  constructor(code: IdentityErrorCode, message: string) {
    super(code, message);
  }
}

/** Whether `text` names a platform boxbot speaks. */
export function isPlatform(text: string): text is Platform {
  return (PLATFORMS as readonly string[]).includes(text);
}

/** `text` as a Platform; throws IdentityError `unknown-platform` naming the platforms there are. */
export function parsePlatform(text: string): Platform {
  if (isPlatform(text)) return text;
  throw new IdentityError(
    'unknown-platform',
    `unknown platform ${JSON.stringify(text)} (expected ${PLATFORMS.slice(0, -1).join(', ')} or ${PLATFORMS.at(-1)})`,
  );
}

/**
 * A user on a platform: `<platform>:<userId>` (`telegram:4242`, `slack:U024BE7LH`, `web:<owner>`).
 * Usage, memories, job creators and config `admins` are keyed by it.
 */
export type UserKey = `${Platform}:${string}`;

/** A decoded user key. */
export interface UserRef {
  platform: Platform;
  /** The platform's user id (a web chat's browser owner); never empty, no white space. */
  userId: string;
}

// A platform user id: anything without white space (ids, Slack's U…, a web owner digest). Colons
// are allowed: the first one ends the platform.
const USER_ID = /^\S+$/;

/**
 * The user key of a speaker.
 * @example encodeUserKey({ platform: 'telegram', userId: '4242' }) === 'telegram:4242'
 */
export function encodeUserKey(ref: UserRef): UserKey {
  const key: UserKey = `${ref.platform}:${ref.userId}`;
  decodeUserKey(key); // validates both parts
  return key;
}

/** Decodes a user key; throws IdentityError `bad-user-key` naming what is wrong. */
export function decodeUserKey(key: string): UserRef {
  const at = key.indexOf(':');
  if (at < 0) throw badUserKey(key, 'expected <platform>:<userId>, such as telegram:4242');
  const platform = key.slice(0, at);
  const userId = key.slice(at + 1);
  if (!isPlatform(platform)) throw badUserKey(key, `unknown platform (expected ${PLATFORMS.join(', ')})`);
  if (!USER_ID.test(userId)) throw badUserKey(key, 'the user id must be non-empty, without white space');
  return { platform, userId };
}

/** decodeUserKey's refusal (a function of its own: a closure made per call costs every call, several per message). */
function badUserKey(key: string, why: string): IdentityError {
  return new IdentityError('bad-user-key', `bad user key ${JSON.stringify(key)}: ${why}`);
}

/**
 * Who speaks in a message: the identity a web chat browser signed in as, else the platform's own
 * user. Policy, usage, budgets, memory and approvals follow it.
 * @example speakerOf({ platform: 'web', userId: 'ab12', signedInAs: 'telegram:4242' }).userId === '4242'
 */
export function speakerOf(m: Pick<InboundMessage, 'platform' | 'userId' | 'signedInAs'>): UserRef {
  return m.signedInAs ? decodeUserKey(m.signedInAs) : { platform: m.platform, userId: m.userId };
}

/** The user key of a message's speaker (see `speakerOf`). */
export function userKeyOf(m: Pick<InboundMessage, 'platform' | 'userId' | 'signedInAs'>): UserKey {
  return encodeUserKey(speakerOf(m));
}
