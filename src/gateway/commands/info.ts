// The commands that show or pick what applies here: /model, /usage, /status, /whoami and /help.
// All `read`: /model picks only among the models the policy allows.
import type { ChatCommand } from '../../runner/chat-command.ts';
import { allowedModels } from '../../runner/policy.ts';
import type { GatewayCommandContext } from './context.ts';
import { matchModel, modelListText, NOT_HERE, statusText, usageText, whoamiText } from './texts.ts';

/** /model: the models allowed here, or a switch to one (kept per conversation). */
export const modelCommand: ChatCommand<GatewayCommandContext> = {
  name: 'model',
  description: 'show or switch the model',
  args: { name: 'name', description: 'the model to switch to' },
  access: 'read',
  async run(ctx) {
    const allowed = allowedModels(ctx.policy);
    const current = (await ctx.chosenPolicy()).model;
    if (!ctx.arg) return ctx.reply(modelListText(allowed, current));
    if (!ctx.agent.chooseModel) return ctx.reply(NOT_HERE);
    const chosen = matchModel(ctx.arg, allowed);
    if (!chosen) return ctx.reply(`${ctx.arg} is not a model allowed here.\n${modelListText(allowed, current)}`);
    await ctx.agent.chooseModel(ctx.message.conversationKey, chosen);
    return ctx.reply(`Model for this conversation: ${chosen}.`);
  },
};

/** /usage: spending of the conversation and the user, and the budget left. */
export const usageCommand: ChatCommand<GatewayCommandContext> = {
  name: 'usage',
  description: 'tokens and cost, today and in total, and the budget left',
  access: 'read',
  async run(ctx) {
    if (!ctx.agent.usage) return ctx.reply(NOT_HERE);
    return ctx.reply(usageText(await ctx.agent.usage(ctx.message, ctx.policy)));
  },
};

/** /status: the model, the access mode, and the work running, queued or waiting on approvers. */
export const statusCommand: ChatCommand<GatewayCommandContext> = {
  name: 'status',
  description: 'the model, access, and work running or queued',
  access: 'read',
  async run(ctx) {
    const p = await ctx.chosenPolicy();
    return ctx.reply(
      statusText({
        model: p.model,
        access: p.access,
        running: !!ctx.conversation.running,
        queued: ctx.conversation.queued,
        approvals: ctx.approvals.waiting(ctx.message.conversationKey),
        ...(ctx.recordedDays !== undefined ? { recordedDays: ctx.recordedDays } : {}),
      }),
    );
  },
};

/** /whoami: who the user is here, the access mode, the tools and which need approval. */
export const whoamiCommand: ChatCommand<GatewayCommandContext> = {
  name: 'whoami',
  description: 'what I may do for you here',
  access: 'read',
  async run(ctx) {
    const p = await ctx.chosenPolicy();
    const { agent, message } = ctx;
    return ctx.reply(whoamiText(message, p, agent.toolsFor(p, message), agent.approvalToolsFor?.(p, message)));
  },
};

/** /help (and /start, a platform's first message): only what the caller may run here. */
export const helpCommand: ChatCommand<GatewayCommandContext> = {
  name: 'help',
  description: 'this text',
  access: 'read',
  aliases: ['start'],
  run: (ctx) => ctx.reply(ctx.helpText()),
};
