// A web chat POST body → InboundMessage, the web's normalize step (the same NormalizeResult as
// every platform). Pure: the body is untrusted JSON from the page; a bad one is `malformed`
// with every problem named, for the 400 answer.
import { MAX_BUTTON_ID_BYTES } from '../button-ids.ts';
import { encodeConversationKey } from '../conversation-key.ts';
import type { NormalizeResult } from '../types.ts';
import { FILE_ID } from './files.ts';

/** Session ids and message ids the page makes: 8-64 letters, digits, `_` or `-`. */
export const WEB_ID = /^[A-Za-z0-9_-]{8,64}$/;
/** What a bad session id is told. */
export const SESSION_RULE = 'session must be 8-64 letters, digits, _ or -';

/** Longest text kept of one message (characters). */
const MAX_TEXT = 100_000;

/** Most files one message may carry. */
export const MAX_ATTACHMENTS = 10;

/** The attachment id of an uploaded file: its session and file id (fetchAttachment finds it by this). */
export const attachmentId = (sessionId: string, fileId: string): string => `${sessionId}:${fileId}`;

/**
 * Checks `{ session, text, id, attachments?, replaces? }` (`replaces`: the id of the message whose
 * turn this one takes the place of, Edit and Regenerate; attachments: ids of files uploaded to this
 * session; the adapter checks they exist and fills in their name, type and size) and builds the
 * message, addressed to the bot. Its `userId` is a placeholder (`local`): the adapter puts the
 * browser owner in its place once the cookie is checked to own the session.
 * Text may be empty when files are attached.
 * @example normalizeWebMessage({ session: 'tab-1234', text: 'hi', id: 'msg-0001' }, new Date())
 */
export function normalizeWebMessage(body: unknown, receivedAt: Date): NormalizeResult {
  const b = (typeof body === 'object' && body !== null ? body : {}) as {
    session?: unknown;
    text?: unknown;
    id?: unknown;
    attachments?: unknown;
    replaces?: unknown;
  };
  const problems: string[] = [];
  const files = b.attachments ?? [];
  const filesOk =
    Array.isArray(files) &&
    files.length <= MAX_ATTACHMENTS &&
    files.every((f) => typeof f === 'string' && FILE_ID.test(f));
  if (!filesOk) problems.push(`attachments must be at most ${MAX_ATTACHMENTS} uploaded file ids`);
  const hasFiles = filesOk && (files as string[]).length > 0;
  if (typeof b.session !== 'string' || !WEB_ID.test(b.session)) problems.push(SESSION_RULE);
  if (typeof b.text !== 'string' || (!b.text.trim() && !hasFiles))
    problems.push('text must be a non-empty string (or empty with attachments)');
  if (typeof b.id !== 'string' || !WEB_ID.test(b.id)) problems.push('id must be 8-64 letters, digits, _ or -');
  const replaces = b.replaces;
  if (replaces !== undefined && (typeof replaces !== 'string' || !WEB_ID.test(replaces) || replaces === b.id))
    problems.push('replaces must be the id of an earlier message (8-64 letters, digits, _ or -)');
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
      attachments: [...new Set(files as string[])].map((f) => ({ id: attachmentId(sessionId, f) })),
      receivedAt: receivedAt.toISOString(),
      ...(typeof replaces === 'string' ? { replacesTurn: `web:${sessionId}:${replaces}` } : {}),
      raw: null,
    },
  };
}

/**
 * Checks a button press `{ session, messageId, button }` and builds its message (empty text,
 * `action` set). Whether the message and button exist in this session is the adapter's check.
 */
export function normalizeWebPress(body: unknown, pressId: string, receivedAt: Date): NormalizeResult {
  const b = (typeof body === 'object' && body !== null ? body : {}) as {
    session?: unknown;
    messageId?: unknown;
    button?: unknown;
  };
  const problems: string[] = [];
  if (typeof b.session !== 'string' || !WEB_ID.test(b.session)) problems.push(SESSION_RULE);
  if (typeof b.messageId !== 'string' || !/^[0-9]{1,16}$/.test(b.messageId))
    problems.push('messageId must be a message id of this chat');
  if (typeof b.button !== 'string' || !b.button || Buffer.byteLength(b.button) > MAX_BUTTON_ID_BYTES)
    problems.push(`button must be a button id (1-${MAX_BUTTON_ID_BYTES} bytes)`);
  if (problems.length) return { kind: 'malformed', reason: problems.join('; ') };
  const sessionId = b.session as string;
  return {
    kind: 'message',
    message: {
      id: `web:${sessionId}:press:${pressId}`,
      platform: 'web',
      conversationKey: encodeConversationKey({ platform: 'web', chatId: sessionId }),
      chatId: sessionId,
      userId: 'local',
      userName: 'you',
      text: '',
      isDirect: true,
      mentionsBot: true,
      attachments: [],
      action: { id: b.button as string, messageId: b.messageId as string },
      receivedAt: receivedAt.toISOString(),
      raw: null,
    },
  };
}
