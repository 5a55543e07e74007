// The `boxbot` command line (shared/design.md, "Command line"). Exit codes: 0 success,
// 2 usage errors, 1 other failures; an error is one line on stderr naming what was wrong.
// Example: boxbot tool run tools/read.wasm --dir ./ws:ro --input '{"file_path":"a.txt"}'
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { readSecrets, secretValues } from '../config/env.ts';
import { ConfigError, loadConfig } from '../config/load.ts';
import { redactSecrets, registerSecrets } from '../log.ts';
import { BoxbotError, UsageError } from '../errors.ts';
import { SandboxError } from '../sandbox/index.ts';
import { toolCacheDir } from '../agent/tools/index.ts';
import { ask, chat, type AskFlags } from './ask.ts';
import { doctor } from './doctor.ts';
import { skillList } from './skill-list.ts';
import { start } from './start.ts';
import { registerJobCommands } from './job.ts';
import { toolList, type ToolListFlags } from './tool-list.ts';
import { toolRun, type ToolRunFlags } from './tool-run.ts';
import { toolValidate, type ToolValidateFlags } from './tool-validate.ts';

const collect = (v: string, prev: string[]) => [...prev, v];

/** Builds the program; `run` parses argv and returns the exit code. */
export function buildProgram(): Command {
  const program = new Command('boxbot')
    .description('Self-hosted chat bot gateway whose tools run in a WebAssembly sandbox')
    .version('0.1.0')
    .option('--config <file>', 'config file (default: ./boxbot.config.json if present)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  const configFile = () => program.opts<{ config?: string }>().config;
  program
    .command('start')
    .description('run the gateway (web chat on 127.0.0.1 and every configured channel)')
    .action(async () => {
      process.exitCode = await start(configFile());
    });
  program
    .command('ask <prompt>')
    .description('one agent run; prints the final answer')
    .option('--model <provider/model>', 'model to use (default: config "model", else the first provider with a key)')
    .option('--access <mode>', 'full | read-only | chat-only', 'read-only')
    .option('--workdir <dir>', 'the folder tools may see (default: the current folder)')
    .option('--format <format>', 'text | json', 'text')
    .action(async (prompt: string, flags: AskFlags) => {
      process.exitCode = await ask(prompt, flags, configFile());
    });
  program
    .command('chat')
    .description('chat with the agent in the terminal')
    .option('--model <provider/model>', 'model to use')
    .option('--access <mode>', 'full | read-only | chat-only', 'read-only')
    .option('--workdir <dir>', 'the folder tools may see (default: the current folder)')
    .action(async (flags: AskFlags) => {
      process.exitCode = await chat(flags, configFile());
    });

  const tool = program.command('tool').description('WASM tools: list, validate, run');
  tool
    .command('list')
    .description('list the bundled and extension tools, and refused files with the reason')
    .option('--format <format>', 'text | json', 'text')
    .option('--bundled <dir>', 'bundled tools directory (default: the package tools/dist)')
    .action(async (flags: ToolListFlags) => {
      const { dataDir } = loadConfig(program.opts<{ config?: string }>().config);
      process.exitCode = await toolList(flags, dataDir, join(dataDir, 'cache', 'sandbox'));
    });
  tool
    .command('validate <file>')
    .description('check a tool and print its spec, or why it is refused')
    .option('--format <format>', 'text | json', 'text')
    .action(async (file: string, flags: ToolValidateFlags) => {
      const { dataDir } = loadConfig(program.opts<{ config?: string }>().config);
      process.exitCode = await toolValidate(file, flags, toolCacheDir(dataDir), join(dataDir, 'cache', 'sandbox'));
    });
  tool
    .command('run <file> [args...]')
    .description('run a .wasm tool in the sandbox with exactly the given grant')
    .option('--dir <HOST[:GUEST][:ro|:rw]>', 'mount a host directory, read-write unless :ro (repeatable; the first is the guest /)', collect, [])
    .option('--env <K=V>', 'environment variable for the guest (repeatable)', collect, [])
    .option('--allow-host <pattern>', 'allow outbound HTTP to a host pattern (repeatable)', collect, [])
    .option('--block <net>', 'block a CIDR, "private" (default) or "none" (repeatable)', collect, [])
    .option('--timeout <ms>', 'wall-clock limit in milliseconds')
    .option('--fuel <n>', 'instruction budget')
    .option('--max-memory <mb>', 'linear memory cap in MiB')
    .option('--max-output <bytes>', 'cap on stdout + stderr')
    .option('--input <json>', 'tool input as JSON, mapped to flags')
    .option('--format <format>', 'text | json', 'text')
    .action(async (file: string, args: string[], flags: ToolRunFlags) => {
      // Standalone: `--dir .` must not expose a ./data that holds the compile cache.
      const loaded = loadConfig(program.opts<{ config?: string }>().config, process.cwd(), { standalone: true });
      process.exitCode = await toolRun(file, args, flags, {
        cacheDir: join(loaded.dataDir, 'cache', 'sandbox'),
        protect: { dirs: [loaded.dataDir], noWrite: loaded.file ? [loaded.file] : [] },
      });
    });

  program
    .command('skill')
    .description('skills')
    .command('list')
    .description('list the bundled and extension skills, and skipped SKILL.md files with the reason')
    .option('--format <format>', 'text | json', 'text')
    .action(async (flags: { format?: string }) => {
      process.exitCode = await skillList(flags, loadConfig(configFile()).dataDir);
    });
  registerJobCommands(program.command('job').description('scheduled jobs'), () => program.opts<{ config?: string }>().config);
  program
    .command('doctor')
    .description('check config, tokens, providers, tools and store, and print what to fix')
    .option('--offline', 'do not contact providers')
    .action(async (flags: { offline?: boolean }) => {
      process.exitCode = await doctor(configFile(), flags.offline ? { offline: true } : {});
    });
  return program;
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  // The standard key variables; commands that read a config add its custom ones.
  registerSecrets(secretValues(readSecrets()));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      return 2;
    }
    const message = e instanceof Error ? e.message : String(e);
    process.stderr.write(`boxbot: ${redactSecrets(message)}\n`);
    if (e instanceof UsageError || e instanceof ConfigError) return 2;
    if (e instanceof SandboxError && e.code === 'bad-grant') return 2;
    return 1;
  }
}
