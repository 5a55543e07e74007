// Discord INTERACTION_CREATE dispatch data → InboundMessage: an application (slash) command
// becomes the text `/<name> [arg]`, a button press (message component) a message with `action`.
// Pure and defensive like normalize.ts. Also the shapes the adapter sends for buttons (action
// rows) and commands (bulk overwrite), and the interaction handle answerPress decodes.
import { checkButtonIds } from '../button-ids.ts';
import { encodeConversationKey } from '../conversation-key.ts';
import { AdapterError } from '../errors.ts';
import type { Button, CommandSpec, InboundMessage, NormalizeResult } from '../types.ts';
import { interactionReplyKey } from './interaction-replies.ts';
import { THREAD_CHANNEL_TYPES } from './normalize.ts';

/** Interaction types (Discord's numbers). */
const APPLICATION_COMMAND = 2;
const MESSAGE_COMPONENT = 3;
const BUTTON = 2;
const STRING_OPTION = 3;
const SNOWFLAKE = /^\d{1,20}$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const snowflake = (v: unknown): string | undefined => (typeof v === 'string' && SNOWFLAKE.test(v) ? v : undefined);

/** What the adapter needs to answer an interaction (its callback and webhook routes). */
export interface InteractionRef {
  id: string;
  applicationId: string;
  token: string;
  kind: 'command' | 'component';
}

/** A checked interaction: how to answer it and, when it is for the agent, the message. */
export interface ParsedInteraction {
  ref: InteractionRef;
  result: NormalizeResult;
}

/**
 * Checks and normalizes one INTERACTION_CREATE `d`; a sentence saying what is wrong when it cannot
 * even be answered. The InboundMessage id is the interaction's id (a replayed dispatch repeats it).
 */
export function parseInteraction(d: unknown, receivedAt = new Date()): ParsedInteraction | string {
  if (!isObj(d)) return 'interaction is not an object';
  const id = snowflake(d.id);
  const applicationId = snowflake(d.application_id);
  const token = str(d.token);
  if (!id || !applicationId || !token) return 'interaction without id, application_id or token';
  if (d.type !== APPLICATION_COMMAND && d.type !== MESSAGE_COMPONENT) return `interaction type ${String(d.type)}`;
  const ref: InteractionRef = {
    id,
    applicationId,
    token,
    kind: d.type === APPLICATION_COMMAND ? 'command' : 'component',
  };
  const member = isObj(d.member) ? d.member : undefined;
  const user = isObj(member?.user) ? (member.user as Obj) : isObj(d.user) ? d.user : undefined;
  const userId = snowflake(user?.id);
  const channel = isObj(d.channel) ? d.channel : {};
  const channelId = snowflake(d.channel_id) ?? snowflake(channel.id);
  const guildId = snowflake(d.guild_id);
  const data = isObj(d.data) ? d.data : undefined;
  if (!userId || !channelId || !data) return { ref, result: { kind: 'malformed', reason: 'no user, channel or data' } };

  const parentId = snowflake(channel.parent_id);
  const inThread =
    guildId !== undefined && typeof channel.type === 'number' && THREAD_CHANNEL_TYPES.has(channel.type) && !!parentId;
  const chatId = inThread ? parentId! : channelId;
  const base = {
    id: `discord:interaction:${id}`,
    platform: 'discord' as const,
    conversationKey: encodeConversationKey({
      platform: 'discord',
      scope: guildId ?? 'dm',
      chatId,
      ...(inThread ? { threadId: channelId } : {}),
    }),
    chatId,
    ...(inThread ? { threadId: channelId } : {}),
    userId,
    userName: str(member?.nick) ?? str(user?.global_name) ?? str(user?.username) ?? userId,
    isDirect: guildId === undefined,
    // Commands and this bot's buttons are addressed to it by construction.
    mentionsBot: true,
    attachments: [],
    receivedAt: receivedAt.toISOString(),
    raw: d,
  };

  if (ref.kind === 'command') {
    const name = str(data.name);
    if (!name) return { ref, result: { kind: 'malformed', reason: 'command without a name' } };
    const option = Array.isArray(data.options) ? (data.options as unknown[]).find(isObj) : undefined;
    const arg = typeof option?.value === 'string' ? option.value.trim() : undefined;
    // Not a message id: the key the reply names to fill in the deferred response.
    const message: InboundMessage = {
      ...base,
      messageId: interactionReplyKey(id),
      text: `/${name}${arg ? ` ${arg}` : ''}`,
    };
    return { ref, result: { kind: 'message', message } };
  }
  const customId = str(data.custom_id);
  const messageId = snowflake(isObj(d.message) ? d.message.id : undefined);
  if (!customId || !messageId) return { ref, result: { kind: 'malformed', reason: 'component without custom_id' } };
  if (data.component_type !== BUTTON)
    return { ref, result: { kind: 'ignored', reason: `component type ${String(data.component_type)}` } };
  const message: InboundMessage = {
    ...base,
    text: '',
    action: { id: customId, messageId, handle: encodeHandle(ref) },
  };
  return { ref, result: { kind: 'message', message } };
}

/** ButtonPress.handle of a component interaction: what an ephemeral follow-up needs. */
export function encodeHandle(ref: InteractionRef): string {
  return `${ref.applicationId}:${ref.token}`;
}

/** The application id and token in a handle, or undefined when it is not one of ours. */
export function decodeHandle(handle: string | undefined): { applicationId: string; token: string } | undefined {
  const m = handle ? /^(\d{1,20}):(.+)$/.exec(handle) : null;
  return m ? { applicationId: m[1]!, token: m[2]! } : undefined;
}

/**
 * Action rows of buttons, five to a row (Discord's limit per row; at most five rows). An empty
 * list: no rows, which removes them on an edit. More than 25 buttons is refused, not cut.
 */
export function componentsOf(buttons: Button[]): unknown[] {
  checkButtonIds('discord', buttons);
  if (buttons.length > 25) throw new AdapterError('discord', 'bad-button', `${buttons.length} buttons; at most 25`);
  const style = { primary: 1, danger: 4 } as const;
  const rows: unknown[] = [];
  for (let at = 0; at < buttons.length; at += 5) {
    rows.push({
      type: 1,
      components: buttons.slice(at, at + 5).map((b) => ({
        type: BUTTON,
        style: b.style ? style[b.style] : 2,
        label: b.label.slice(0, 80),
        custom_id: b.id,
      })),
    });
  }
  return rows;
}

/** The bulk-overwrite body of the bot's global chat-input commands. */
export function commandsBody(commands: CommandSpec[]): unknown[] {
  return commands.map((c) => ({
    type: 1,
    name: c.name,
    description: c.description.slice(0, 100) || c.name,
    options: c.argument
      ? [
          {
            type: STRING_OPTION,
            name: c.argument.name,
            description: c.argument.description.slice(0, 100) || c.argument.name,
            required: false,
          },
        ]
      : [],
  }));
}
