// The chat commands of long-term memory, registered beside the gateway's own: `/memory` lists the
// notes visible here (the speaker's and the conversation's), `/forget <id|all>` removes one or all
// of them. They read and delete through the memory book (agent/memory), so they cannot reach past
// the speaker's view; here, above the agent, because a chat command is a conversation's concern.

import { userKeyOf } from '../adapters/index.ts';
import { forget, forgetAll, type MemoryView, memoryLine, visibleMemories } from '../agent/memory/index.ts';
import { errorMessage } from '../core/errors.ts';
import type { MemoryStore } from '../store/index.ts';
import type { ChatCommand, CommandContext } from './chat-command.ts';

/** Most notes /memory lists (newest first). */
const MAX_LISTED = 50;

/** The speaker's view of memory in a command's conversation. */
const viewOf = ({ message, caller }: CommandContext): MemoryView => ({
  conversationKey: message.conversationKey,
  userKey: userKeyOf(message),
  ...(caller.admin ? { admin: true } : {}),
});

/** `/memory`'s answer: the notes visible in `view`, newest first. */
async function listText(store: MemoryStore, view: MemoryView): Promise<string> {
  const all = (await visibleMemories(store, view)).reverse();
  if (!all.length) return 'I keep no notes about you or this conversation.';
  const shown = all.slice(0, MAX_LISTED).map((m) => memoryLine(m));
  const more = all.length > MAX_LISTED ? [`(and ${all.length - MAX_LISTED} older)`] : [];
  return [`Notes I keep (${all.length}); /forget <id> deletes one:`, ...shown, ...more].join('\n');
}

/** `/forget`'s answer: one note deleted, or all the speaker may delete. */
async function forgetText(store: MemoryStore, view: MemoryView, arg: string | undefined): Promise<string> {
  if (!arg) return 'Usage: /forget <id> or /forget all';
  if (arg.toLowerCase() === 'all') {
    const { deleted, kept } = await forgetAll(store, view);
    if (!deleted && !kept) return 'There was nothing to forget.';
    const done = deleted ? `Done: I deleted ${deleted} note(s).` : 'I deleted nothing.';
    return kept
      ? `${done} ${kept} note(s) other users saved here are kept: only they or an admin may delete them.`
      : done;
  }
  const r = await forget(store, view, arg);
  if (r === 'deleted') return `Done: I deleted ${arg}.`;
  return r === 'not-yours'
    ? `${arg} was saved by another user; only they or an admin may delete it.`
    : `I have no note ${arg} here.`;
}

/**
 * The memory commands (`enabled: false` in the config: each answers in one line that memory is
 * off). `/forget` is `write`: it deletes what the conversation keeps (command-access.ts).
 */
export function memoryCommands(store: MemoryStore, enabled = true): ChatCommand[] {
  const answer = async (ctx: CommandContext, text: () => Promise<string>): Promise<void> => {
    if (!enabled) return ctx.reply('Long-term memory is turned off here.');
    let reply: string;
    try {
      reply = await text();
    } catch (e) {
      reply = `Sorry, memory is not available right now: ${errorMessage(e)}`;
    }
    return ctx.reply(reply);
  };
  return [
    {
      name: 'memory',
      description: 'the notes I keep about you and this conversation',
      access: 'read',
      run: (ctx) => answer(ctx, () => listText(store, viewOf(ctx))),
    },
    {
      name: 'forget',
      description: 'delete one note, or all of them',
      args: { name: 'id', description: 'the note id, or all', usage: '<id|all>' },
      access: 'write',
      run: (ctx) => answer(ctx, () => forgetText(store, viewOf(ctx), ctx.arg)),
    },
  ];
}
