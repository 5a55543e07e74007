// Builders of Slack's interactivity payloads as Slack documents them: the slash command form
// fields (posted form-encoded over HTTP, or as a `slash_commands` envelope's payload) and the
// `block_actions` payload of a button press (`payload=<json>` over HTTP, or an `interactive`
// envelope), each with a fresh trigger_id and a response_url.
import { randomBytes } from 'node:crypto';
import type { StoredMessage, WorkspaceIds } from './workspace.ts';

let seq = 0;

/** A Slack-looking trigger id (`<digits>.<digits>.<hex>`). */
export function newTriggerId(): string {
  seq += 1;
  return `${Date.now()}${seq}.${Math.floor(Math.random() * 1e9)}.${randomBytes(16).toString('hex')}`;
}

/** The form fields of `/command text` typed by `user` in `channel`. */
export function slashCommandFields(
  ids: WorkspaceIds,
  p: { channel: string; user: string; userName: string; command: string; text: string; responseUrl: string },
): Record<string, string> {
  return {
    token: 'verification-token-unused',
    team_id: ids.teamId,
    team_domain: 'emulated',
    channel_id: p.channel,
    channel_name: p.channel.startsWith('D') ? 'directmessage' : 'general',
    user_id: p.user,
    user_name: p.userName,
    command: p.command,
    text: p.text,
    api_app_id: ids.appId,
    is_enterprise_install: 'false',
    response_url: p.responseUrl,
    trigger_id: newTriggerId(),
  };
}

/** The block_actions payload of `user` pressing the button `actionId` under the bot's message `m`. */
export function blockActionsPayload(
  ids: WorkspaceIds,
  p: { m: StoredMessage; user: string; userName: string; actionId: string; blockId: string; responseUrl: string },
): Record<string, unknown> {
  const { m } = p;
  return {
    type: 'block_actions',
    user: { id: p.user, username: p.userName, name: p.userName, team_id: ids.teamId },
    api_app_id: ids.appId,
    token: 'verification-token-unused',
    container: {
      type: 'message',
      message_ts: m.ts,
      channel_id: m.channel,
      is_ephemeral: false,
      ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
    },
    trigger_id: newTriggerId(),
    team: { id: ids.teamId, domain: 'emulated' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: m.channel, name: m.channel.startsWith('D') ? 'directmessage' : 'general' },
    message: {
      type: 'message',
      user: ids.botUserId,
      bot_id: ids.botId,
      text: m.text,
      ts: m.ts,
      ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
      blocks: m.blocks ?? [],
    },
    state: { values: {} },
    response_url: p.responseUrl,
    actions: [
      {
        action_id: p.actionId,
        block_id: p.blockId,
        text: { type: 'plain_text', text: p.actionId, emoji: true },
        value: p.actionId,
        type: 'button',
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
}

/** The buttons of a message's actions blocks: block id, action id and label. */
export function buttonsOf(m: StoredMessage): { blockId: string; actionId: string; label: string }[] {
  const out: { blockId: string; actionId: string; label: string }[] = [];
  for (const b of m.blocks ?? []) {
    const block = b as { type?: unknown; block_id?: unknown; elements?: unknown };
    if (block.type !== 'actions' || !Array.isArray(block.elements)) continue;
    for (const e of block.elements as { type?: unknown; action_id?: unknown; text?: { text?: unknown } }[]) {
      if (e.type === 'button' && typeof e.action_id === 'string')
        out.push({ blockId: String(block.block_id ?? ''), actionId: e.action_id, label: String(e.text?.text ?? '') });
    }
  }
  return out;
}
