// A web chat POST body → InboundMessage, the web's normalize step (the same NormalizeResult as
// every platform). Pure: the body is untrusted JSON from the page; a bad one is `malformed`
// with every problem named, for the 400 answer.
import { encodeConversationKey } from '../conversation-key.ts';
import type { NormalizeResult } from '../types.ts';

/** Session ids and message ids the page makes: 8-64 letters, digits, `_` or `-`. */
export const WEB_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** Longest text kept of one message (characters). */
const MAX_TEXT = 100_000;

/**
 * Checks `{ session, text, id }` and builds the message; the person at the page is the local
 * user, and every message is addressed to the bot.
 * @example normalizeWebMessage({ session: 'tab-1234', text: 'hi', id: 'msg-0001' }, new Date())
 */
export function normalizeWebMessage(body: unknown, receivedAt: Date): NormalizeResult {
  const b = (typeof body === 'object' && body !== null ? body : {}) as {
    session?: unknown;
    text?: unknown;
    id?: unknown;
  };
  const problems: string[] = [];
  if (typeof b.session !== 'string' || !WEB_ID.test(b.session))
    problems.push('session must be 8-64 letters, digits, _ or -');
  if (typeof b.text !== 'string' || !b.text.trim()) problems.push('text must be a non-empty string');
  if (typeof b.id !== 'string' || !WEB_ID.test(b.id)) problems.push('id must be 8-64 letters, digits, _ or -');
  if (problems.length) return { kind: 'malformed', reason: problems.join('; ') };
  const sessionId = b.session as string;
  const id = b.id as string;
  return {
    kind: 'message',
    message: {
      id: `web:${sessionId}:${id}`,
      platform: 'web',
      conversationKey: encodeConversationKey({ platform: 'web', chatId: sessionId }),
      chatId: sessionId,
      messageId: id,
      userId: 'local',
      userName: 'you',
      text: (b.text as string).slice(0, MAX_TEXT),
      isDirect: true,
      mentionsBot: true,
      attachments: [],
      receivedAt: receivedAt.toISOString(),
      raw: null,
    },
  };
}
