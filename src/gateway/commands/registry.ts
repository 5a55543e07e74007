// The one table of chat commands: the gateway's own and those other parts register (memory's).
// From it come the parsing of a typed `/name arg`, the /help text (only what the caller may run
// here), the platform menus (Telegram setMyCommands, Discord slash commands, the web chat's `/`
// menu) and the command dispatch runs. A text that names no registered command is plain text.
import type { CommandSpec } from '../../adapters/index.ts';
import type { ChatCommand, CommandContext } from '../../runner/chat-command.ts';
import type { CommandLevel } from '../../runner/command-access.ts';
import { commandHelp } from './texts.ts';

/** A command found in a text: the command, the name it was typed as (`start` for /help) and its argument. */
export interface ParsedCommand<C extends CommandContext = CommandContext> {
  command: ChatCommand<C>;
  name: string;
  arg?: string;
}

/** The commands, in menu order. */
export interface CommandRegistry<C extends CommandContext = CommandContext> {
  readonly commands: readonly ChatCommand<C>[];
  /** The command in `text` with its argument (`/model gpt-4o`, `/approve@mybot ab12`), if it is one. */
  parse(text: string): ParsedCommand<C> | undefined;
  /** The /help text, listing the commands whose level `may` allows (default: all). */
  helpText(may?: (level: CommandLevel) => boolean): string;
  /** The commands as registered in a platform's own menu. */
  menu(): CommandSpec[];
}

const HELP_INTRO = 'I am an AI assistant. Talk to me in plain words; in groups, mention me.';
const COMMAND = /^\/([a-z]+)(?:@[A-Za-z0-9_]+)?(?:\s+(\S[\s\S]*?))?\s*$/i;

/** The registry of `commands` (menu order); a name given twice is a mistake and throws. */
export function createCommandRegistry<C extends CommandContext>(
  commands: readonly ChatCommand<C>[],
): CommandRegistry<C> {
  const byName = new Map<string, ChatCommand<C>>();
  for (const c of commands)
    for (const name of [c.name, ...(c.aliases ?? [])]) {
      if (byName.has(name)) throw new Error(`the chat command /${name} is registered twice`);
      byName.set(name, c);
    }
  return {
    commands,
    parse(text) {
      const m = COMMAND.exec(text.trim());
      const name = m?.[1]?.toLowerCase();
      const command = name ? byName.get(name) : undefined;
      if (!name || !command) return undefined;
      const arg = m?.[2]?.trim();
      // A command that takes no argument, followed by text, is a sentence that starts with it.
      if (arg && !command.args) return undefined;
      return { command, name, ...(arg ? { arg } : {}) };
    },
    helpText(may = () => true) {
      return commandHelp(
        HELP_INTRO,
        commands
          .filter((c) => may(c.access))
          .map((c) => [c.args ? `${c.name} ${c.args.usage ?? `[${c.args.name}]`}` : c.name, c.description]),
      );
    },
    menu: () =>
      commands.map((c) => ({
        name: c.name,
        description: c.description,
        ...(c.args ? { argument: { name: c.args.name, description: c.args.description } } : {}),
      })),
  };
}
