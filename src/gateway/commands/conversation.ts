// The commands that steer a conversation's history and its running turn: /new, /compact, /stop
// and /reset. They answer at once, outside the conversation's queue (/stop is what cancels the
// turn), except /compact, which waits behind the turn, as it rewrites the history that turn saves.
import { errorMessage } from '../../core/errors.ts';
import type { ChatCommand } from '../../runner/chat-command.ts';
import type { GatewayCommandContext } from './context.ts';
import { NOT_HERE } from './texts.ts';

/** /new: a fresh session, the old one archived (`read`: nothing is lost). */
export const newCommand: ChatCommand<GatewayCommandContext> = {
  name: 'new',
  description: 'start a fresh session (the old one is archived)',
  access: 'read',
  async run(ctx) {
    if (!ctx.agent.newSession) return ctx.reply(NOT_HERE);
    ctx.conversation.running?.abort(new Error('new session'));
    await ctx.conversation.tail;
    // Keyed by the message: replayed after a crash before its reply was written, it archives nothing more.
    const r = await ctx.agent.newSession(ctx.message.conversationKey, ctx.message.id);
    return ctx.reply(
      r.archivedMessages
        ? `Started a new session. The previous one (${r.archivedMessages} messages) is archived, not deleted.`
        : 'Started a new session.',
    );
  },
};

/** /compact: the older turns summarised into one (`read`: the summary keeps them). */
export const compactCommand: ChatCommand<GatewayCommandContext> = {
  name: 'compact',
  description: 'summarise the older turns to save context',
  access: 'read',
  async run(ctx) {
    const compact = ctx.agent.compact?.bind(ctx.agent);
    if (!compact) return ctx.reply(NOT_HERE);
    // Behind the running turn: it rewrites the history that turn will save.
    ctx.behindTurns(
      `${ctx.message.id}:compact`,
      async () => {
        let text: string;
        try {
          const r = await compact({ message: ctx.message, policy: await ctx.chosenPolicy(), signal: ctx.stopping });
          text = r
            ? `Compacted: the ${r.before} messages of this conversation are now ${r.after}.`
            : 'Nothing to compact yet.';
        } catch (e) {
          text = `Could not compact: ${errorMessage(e)}`;
        }
        await ctx.reply(text);
      },
      'compact failed',
    );
  },
};

/** /stop: cancels the running turn, which answers for itself. */
export const stopCommand: ChatCommand<GatewayCommandContext> = {
  name: 'stop',
  description: 'stop what I am doing',
  access: 'read',
  async run(ctx) {
    if (!ctx.conversation.running) return ctx.reply('Nothing is running.');
    ctx.conversation.running.abort(new Error('stopped by /stop'));
    return ctx.finish(); // the cancelled run answers for itself; this message needs no reply
  },
};

/** /reset: forgets the conversation (`write`: it deletes what the conversation keeps). */
export const resetCommand: ChatCommand<GatewayCommandContext> = {
  name: 'reset',
  description: 'forget this conversation',
  access: 'write',
  async run(ctx) {
    ctx.conversation.running?.abort(new Error('reset'));
    await ctx.conversation.tail;
    await ctx.agent.reset(ctx.message.conversationKey);
    return ctx.reply('Done: I forgot this conversation.');
  },
};
