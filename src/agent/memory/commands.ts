// The chat commands of long-term memory, kept apart from the gateway's own: `/memory` lists the
// notes visible here (the speaker's and the conversation's), `/forget <id|all>` removes one or all
// of them. The gateway only asks whether a text is one of these and relays the reply.
import { encodeUserKey, type Platform } from '../../adapters/index.ts';
import { errorMessage } from '../../core/errors.ts';
import type { MemoryStore } from '../../store/index.ts';
import { forget, forgetAll, type MemoryView, memoryLine, visibleMemories } from './memory-book.ts';

/** Most notes /memory lists (newest first). */
const MAX_LISTED = 50;

const PATTERN = /^\/(memory|forget)(?:@[A-Za-z0-9_]+)?(?:\s+(.*))?$/is;

/** The memory command in `text`, if it is one. */
export function parseMemoryCommand(text: string): { name: 'memory' | 'forget'; arg: string } | undefined {
  const m = PATTERN.exec(text.trim());
  if (!m) return undefined;
  return { name: m[1]!.toLowerCase() as 'memory' | 'forget', arg: (m[2] ?? '').trim() };
}

/** /help lines of the memory commands, with their access levels (the gateway's rule: `write` deletes). */
export const MEMORY_COMMAND_HELP: [name: string, what: string, level: 'read' | 'write'][] = [
  ['memory', 'the notes I keep about you and this conversation', 'read'],
  ['forget <id|all>', 'delete one note, or all of them', 'write'],
];

/** The speaker and conversation of a chat message (the fields the commands read). */
interface CommandMessage {
  platform: Platform;
  userId: string;
  conversationKey: string;
  text: string;
}

/** The memory commands as the gateway's chat-command hook (GatewayOptions.chatCommands). */
export function memoryCommands(store: MemoryStore, enabled = true) {
  return {
    help: MEMORY_COMMAND_HELP,
    matches: (text: string): boolean => parseMemoryCommand(text) !== undefined,
    run: (msg: CommandMessage, _policy: unknown, caller?: { admin: boolean }): Promise<string> =>
      runMemoryCommand(
        store,
        {
          conversationKey: msg.conversationKey,
          userKey: encodeUserKey(msg),
          ...(caller?.admin ? { admin: true } : {}),
        },
        msg.text,
        enabled,
      ),
  };
}

/** The reply to a memory command (`enabled: false` in the config: a one-line note that memory is off). */
export async function runMemoryCommand(
  store: MemoryStore,
  view: MemoryView,
  text: string,
  enabled = true,
): Promise<string> {
  const cmd = parseMemoryCommand(text);
  if (!cmd) return 'Not a memory command.';
  if (!enabled) return 'Long-term memory is turned off here.';
  try {
    if (cmd.name === 'memory') {
      const all = (await visibleMemories(store, view)).reverse();
      if (!all.length) return 'I keep no notes about you or this conversation.';
      const shown = all.slice(0, MAX_LISTED).map((m) => memoryLine(m));
      const more = all.length > MAX_LISTED ? [`(and ${all.length - MAX_LISTED} older)`] : [];
      return [`Notes I keep (${all.length}); /forget <id> deletes one:`, ...shown, ...more].join('\n');
    }
    if (!cmd.arg) return 'Usage: /forget <id> or /forget all';
    if (cmd.arg.toLowerCase() === 'all') {
      const { deleted, kept } = await forgetAll(store, view);
      if (!deleted && !kept) return 'There was nothing to forget.';
      const done = deleted ? `Done: I deleted ${deleted} note(s).` : 'I deleted nothing.';
      return kept
        ? `${done} ${kept} note(s) other users saved here are kept: only they or an admin may delete them.`
        : done;
    }
    const r = await forget(store, view, cmd.arg);
    if (r === 'deleted') return `Done: I deleted ${cmd.arg}.`;
    return r === 'not-yours'
      ? `${cmd.arg} was saved by another user; only they or an admin may delete it.`
      : `I have no note ${cmd.arg} here.`;
  } catch (e) {
    return `Sorry, memory is not available right now: ${errorMessage(e)}`;
  }
}
