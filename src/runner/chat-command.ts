// The shape of a chat command, for every part that adds one (the gateway's own, memory's, later
// features'): a name, a description, its argument, its access level and what it does. The
// gateway keeps them in one registry that parses typed commands, writes /help and the platform
// menus, checks the level (command-access.ts) and runs them. It lives here, below the gateway,
// so that the runner's parts can declare commands without importing the gateway.
import type { InboundMessage } from '../adapters/index.ts';
import type { CommandCaller, CommandLevel } from './command-access.ts';
import type { ResolvedPolicy } from './policy.ts';

/** The one free-text argument a command takes (`/model gpt-4o`); a command without one takes no text after it. */
export interface CommandArgument {
  /** Lower case, a word (a Discord option name): `name`, `id`. */
  name: string;
  description: string;
  /** How /help writes it, when not `[name]` (`<id|all>`). */
  usage?: string;
}

/** What a command's `run` gets: the message, where and by whom, and how to answer. */
export interface CommandContext {
  message: InboundMessage;
  /** The conversation's resolved policy (the model chosen with /model not applied). */
  policy: ResolvedPolicy;
  caller: CommandCaller;
  /** The argument typed after the name, trimmed; absent when none was. */
  arg?: string;
  /** Answers the message (once, through the outbox). */
  reply(text: string): Promise<void>;
}

/**
 * A chat command. `access` is checked before `run` by the rule tools follow too
 * (command-access.ts); a caller below it is refused in one line and /help leaves it out.
 * Example: { name: 'memory', description: 'the notes I keep', access: 'read', run: (c) => c.reply('...') }
 */
export interface ChatCommand<C extends CommandContext = CommandContext> {
  /** Lower case, no slash. */
  name: string;
  description: string;
  args?: CommandArgument;
  access: CommandLevel;
  /** Other names it answers to, left out of /help and the menus (`/start` for /help). */
  aliases?: readonly string[];
  run(ctx: C): Promise<void>;
}
