// /approve and /deny: typed answers to approval questions where the platform has no buttons.
// `read`: the desk checks the speaker against the question's approvers.
import type { ChatCommand } from '../../runner/chat-command.ts';
import type { GatewayCommandContext } from './context.ts';

/** /approve <id> or /deny <id>. */
function decision(name: 'approve' | 'deny', description: string): ChatCommand<GatewayCommandContext> {
  return {
    name,
    description,
    args: { name: 'id', description: 'the request id' },
    access: 'read',
    async run(ctx) {
      if (!ctx.arg) return ctx.reply(`Which request? Type /${name} <id> (the id is in the question).`);
      const r = await ctx.approvals.decide(ctx.arg.toLowerCase(), name === 'approve', ctx.message);
      return ctx.reply(r.text);
    },
  };
}

export const approveCommand = decision('approve', 'approve a tool call (where there are no buttons)');
export const denyCommand = decision('deny', 'deny a tool call (where there are no buttons)');
