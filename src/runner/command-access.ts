// Who may run a chat command. Every command has a level, and this one rule checks the level
// against the conversation's resolved policy before any command runs (the gateway's own and the
// extra ones, such as memory's), as tools are checked against their permission level. `read`
// commands look or steer (stop a turn, start a session while the old one is archived); `write`
// commands delete what a conversation keeps for everyone in it (its history, its notes), which a
// read-only or chat-only conversation may not, unless it is the speaker's own direct chat, or the
// speaker is an admin.
import { encodeUserKey, type InboundMessage, speakerOf } from '../adapters/index.ts';
import type { Config } from '../config/schema.ts';
import type { ResolvedPolicy } from './policy.ts';

/** What a command may do: look or steer (`read`), or delete what the conversation keeps (`write`). */
export type CommandLevel = 'read' | 'write';

/** The speaker of a command, as far as the rule needs to know. */
export interface CommandCaller {
  /** A direct chat: its history and notes are the speaker's own. */
  isDirect: boolean;
  /** Listed in the config's `admins`. */
  admin: boolean;
}

/** Whether `msg`'s sender is one of the config's `admins` (`4242`, or `telegram:4242` to name the platform). */
export function isAdmin(
  config: Pick<Config, 'admins'>,
  msg: Pick<InboundMessage, 'platform' | 'userId' | 'signedInAs'>,
): boolean {
  const who = speakerOf(msg);
  return config.admins.some((a) => a === who.userId || a === encodeUserKey(who));
}

/** Whether `caller` may run a command of `level` under `policy`; if not, the one line that says why. */
export function commandAllowed(
  level: CommandLevel,
  policy: Pick<ResolvedPolicy, 'access'>,
  caller: CommandCaller,
): { ok: true } | { ok: false; reason: string } {
  if (level === 'read' || policy.access === 'full' || caller.isDirect || caller.admin) return { ok: true };
  return {
    ok: false,
    reason: `it deletes what this conversation keeps, and access here is ${policy.access} (an admin may)`,
  };
}

/** The reply to a command `name` the caller may not run. */
export function refusedCommandText(name: string, reason: string): string {
  return `Sorry, /${name} is not allowed for you here: ${reason}.`;
}
