// The gateway's chat commands and their registry: the gateway's own in menu order, and the
// parsing every channel (and the terminal chat) shares.

import type { ChatCommand } from '../../runner/chat-command.ts';
import { approveCommand, denyCommand } from './approve.ts';
import type { GatewayCommandContext } from './context.ts';
import { compactCommand, newCommand, resetCommand, stopCommand } from './conversation.ts';
import { helpCommand, modelCommand, statusCommand, usageCommand, whoamiCommand } from './info.ts';
import { createCommandRegistry } from './registry.ts';

export type { ConversationState, GatewayCommandContext } from './context.ts';
export { type CommandRegistry, createCommandRegistry, type ParsedCommand } from './registry.ts';
export { accessLines, commandHelp } from './texts.ts';

/** The gateway's own commands, in menu order (the platform menus and /help list them so). */
export const GATEWAY_COMMANDS: readonly ChatCommand<GatewayCommandContext>[] = [
  newCommand,
  modelCommand,
  usageCommand,
  statusCommand,
  compactCommand,
  stopCommand,
  resetCommand,
  whoamiCommand,
  helpCommand,
  approveCommand,
  denyCommand,
];

const own = createCommandRegistry(GATEWAY_COMMANDS);

/** The gateway command in `text` without an argument, as typed (`/reset`, `/reset@mybot`, `/start`; not `!reset`). */
export function parseCommand(text: string): string | undefined {
  const c = own.parse(text);
  return c && !c.arg ? c.name : undefined;
}
