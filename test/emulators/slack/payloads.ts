// Builders of Events API payloads shaped as Slack documents them (event_callback bodies with
// message / app_mention events), so the adapter under test sees what production sees.
import { randomBytes } from 'node:crypto';
import type { WorkspaceIds } from './workspace.ts';

/** What a user (or another bot) posts. */
export interface UserPost {
  channel: string;
  /** `im` for DMs, `channel` (public), `group` (private), `mpim` (group DM). */
  channelType: 'im' | 'channel' | 'group' | 'mpim';
  user: string;
  text: string;
  ts: string;
  threadTs?: string;
  /** Set for messages from another bot. */
  botId?: string;
  subtype?: string;
}

let eventSeq = 0;

/** A fresh Slack-looking event id (`Ev` + 9 alphanumerics). */
export function newEventId(): string {
  eventSeq += 1;
  return `Ev${(eventSeq.toString(36) + randomBytes(4).toString('hex')).toUpperCase().slice(0, 9).padEnd(9, '0')}`;
}

/** Wraps an event in the event_callback body (identical over HTTP and in Socket Mode payloads). */
export function eventCallback(
  ids: WorkspaceIds,
  event: Record<string, unknown>,
  eventId = newEventId(),
): Record<string, unknown> {
  return {
    token: 'verification-token-unused',
    team_id: ids.teamId,
    context_team_id: ids.teamId,
    context_enterprise_id: null,
    api_app_id: ids.appId,
    event,
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      { enterprise_id: null, team_id: ids.teamId, user_id: ids.botUserId, is_bot: true, is_enterprise_install: false },
    ],
    is_ext_shared_channel: false,
    event_context: `4-${randomBytes(24).toString('base64url')}`,
  };
}

/** The `message` event of a post. */
export function messageEvent(ids: WorkspaceIds, p: UserPost): Record<string, unknown> {
  const base: Record<string, unknown> = {
    type: 'message',
    ...(p.subtype ? { subtype: p.subtype } : {}),
    text: p.text,
    ts: p.ts,
    ...(p.threadTs ? { thread_ts: p.threadTs } : {}),
    team: ids.teamId,
    channel: p.channel,
    event_ts: p.ts,
    channel_type: p.channelType,
  };
  if (p.botId) {
    return {
      ...base,
      user: p.user,
      bot_id: p.botId,
      app_id: 'A0OTHERAPP',
      bot_profile: { id: p.botId, name: 'otherbot', app_id: 'A0OTHERAPP', team_id: ids.teamId, deleted: false },
    };
  }
  return { ...base, user: p.user, client_msg_id: crypto.randomUUID(), blocks: richTextBlocks(p.text) };
}

/** The `app_mention` event of a post that mentions the bot. */
export function appMentionEvent(ids: WorkspaceIds, p: UserPost): Record<string, unknown> {
  return {
    type: 'app_mention',
    user: p.user,
    text: p.text,
    ts: p.ts,
    ...(p.threadTs ? { thread_ts: p.threadTs } : {}),
    team: ids.teamId,
    channel: p.channel,
    event_ts: p.ts,
    client_msg_id: crypto.randomUUID(),
    blocks: richTextBlocks(p.text),
  };
}

function richTextBlocks(text: string): unknown[] {
  return [
    {
      type: 'rich_text',
      block_id: randomBytes(3).toString('hex'),
      elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }],
    },
  ];
}
