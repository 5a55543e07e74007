// Slack's two in-chat controls → InboundMessage: the `/boxbot <command> [arg]` slash command
// (a form body, the same over HTTP and Socket Mode) becomes the text `/<command> [arg]`, and a
// `block_actions` payload (a button pressed under a bot message) becomes a message with `action`.
// Pure and defensive like normalize.ts: bad input is `malformed`, never an exception.
import { encodeConversationKey } from '../conversation-key.ts';
import type { InboundMessage, NormalizeResult } from '../types.ts';
import type { SlackNormalizeContext } from './normalize.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const isId = (v: string | undefined): v is string => v !== undefined && /^[A-Za-z0-9._-]+$/.test(v);

/**
 * A slash command. `/boxbot model gpt-4o` arrives as `/model gpt-4o`; a bare `/boxbot` as `/help`.
 * The id is the command's trigger_id, which a redelivered envelope repeats.
 */
export function normalizeSlackCommand(body: unknown, ctx: SlackNormalizeContext): NormalizeResult {
  if (!isObj(body) || typeof body.command !== 'string') return { kind: 'malformed', reason: 'not a slash command' };
  const channel = str(body.channel_id);
  const user = str(body.user_id);
  const team = str(body.team_id) ?? ctx.teamId;
  if (!isId(channel) || !isId(user) || !isId(team))
    return { kind: 'malformed', reason: 'slash command without a valid channel, user or team' };
  if (body.text !== undefined && typeof body.text !== 'string')
    return { kind: 'malformed', reason: 'slash command text is not a string' };
  const words = ((body.text as string | undefined) ?? '').trim();
  const [name = 'help', ...rest] = words === '' ? [] : words.split(/\s+/);
  const arg = rest.join(' ');
  const trigger = str(body.trigger_id);
  const message: InboundMessage = {
    id: trigger ? `slack:command:${trigger}` : `slack:command:${channel}:${user}:${ctx.receivedAt.getTime()}`,
    platform: 'slack',
    conversationKey: encodeConversationKey({ platform: 'slack', scope: team, chatId: channel }),
    chatId: channel,
    userId: user,
    userName: str(body.user_name) ?? user,
    text: `/${name.replace(/^\//, '').toLowerCase()}${arg ? ` ${arg}` : ''}`,
    isDirect: channel.startsWith('D') || body.channel_name === 'directmessage',
    mentionsBot: true,
    attachments: [],
    receivedAt: ctx.receivedAt.toISOString(),
    raw: body,
  };
  return { kind: 'message', message };
}

/**
 * A button press (`block_actions` with a button action under a message). The id is the press's
 * trigger_id (stable across redeliveries); `action.handle` is the response URL.
 */
export function normalizeSlackAction(body: unknown, ctx: SlackNormalizeContext): NormalizeResult {
  if (!isObj(body) || body.type !== 'block_actions') return { kind: 'ignored', reason: 'not a block action' };
  const action = Array.isArray(body.actions) ? body.actions[0] : undefined;
  if (!isObj(action) || !str(action.action_id)) return { kind: 'malformed', reason: 'block_actions without an action' };
  if (action.type !== 'button') return { kind: 'ignored', reason: `action type ${String(action.type)}` };
  const user = isObj(body.user) ? body.user : undefined;
  const container = isObj(body.container) ? body.container : {};
  const channel = str(isObj(body.channel) ? body.channel.id : undefined) ?? str(container.channel_id);
  const userId = str(user?.id);
  const team = str(isObj(body.team) ? body.team.id : undefined) ?? str(user?.team_id) ?? ctx.teamId;
  const messageTs = str(container.message_ts) ?? str(isObj(body.message) ? body.message.ts : undefined);
  if (!isId(channel) || !isId(userId) || !isId(team) || !isId(messageTs))
    return { kind: 'malformed', reason: 'block action without a valid channel, user, team or message' };
  if (container.is_ephemeral === true) return { kind: 'ignored', reason: 'a button on an ephemeral message' };
  const threadTs = str(isObj(body.message) ? body.message.thread_ts : undefined) ?? str(container.thread_ts);
  const threadId = isId(threadTs) ? threadTs : undefined;
  const trigger = str(body.trigger_id);
  const responseUrl = str(body.response_url);
  const message: InboundMessage = {
    id: trigger ? `slack:action:${trigger}` : `slack:action:${channel}:${messageTs}:${userId}:${str(action.action_ts)}`,
    platform: 'slack',
    conversationKey: encodeConversationKey({
      platform: 'slack',
      scope: team,
      chatId: channel,
      ...(threadId ? { threadId } : {}),
    }),
    chatId: channel,
    ...(threadId ? { threadId } : {}),
    userId,
    userName: str(user?.username) ?? str(user?.name) ?? userId,
    text: '',
    isDirect: channel.startsWith('D'),
    mentionsBot: true,
    attachments: [],
    action: { id: action.action_id as string, messageId: messageTs, ...(responseUrl ? { handle: responseUrl } : {}) },
    receivedAt: ctx.receivedAt.toISOString(),
    raw: body,
  };
  return { kind: 'message', message };
}
