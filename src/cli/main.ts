// The `boxbot` command line (README, "Install and run"). Exit codes: 0 success,
// 2 usage errors, 1 other failures; an error is one line on stderr naming what was wrong.
// Example: boxbot tool run tools/read.wasm --dir ./ws:ro --input '{"file_path":"a.txt"}'
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { readEnvSettings, readSecrets, secretValues } from '../config/env.ts';
import type { StartFlags } from '../config/overrides.ts';
import { errorMessage, UsageError } from '../core/errors.ts';
import { packagePath } from '../core/package-paths.ts';
import { redactSecrets, registerSecrets } from '../core/redact.ts';
import type { AskFlags } from './ask.ts';
import type { JobAddFlags, JobEditFlags } from './job.ts';
import type { SetupFlags } from './setup.ts';
import type { ToolListFlags } from './tool-list.ts';
import type { ToolRunFlags } from './tool-run.ts';
import type { ToolValidateFlags } from './tool-validate.ts';

// Each command's module is imported inside its action, never here: `--help` and `--version`
// must not load discord.js, the SDKs, the sandbox or the scheduler (seconds on a small machine).

/** The package's version, from its package.json. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
}

/** The config loader, imported on first use (it pulls in the schema). */
const config = () => import('../config/load.ts');

const collect = (v: string, prev: string[]) => [...prev, v];

/** Adds the `job` subcommands to `job`; `configFile` reads the global --config. */
function registerJobCommands(job: Command, configFile: () => string | undefined): void {
  job
    .command('add')
    .description('add a scheduled job (a cron, or a webhook that starts it)')
    .requiredOption('--name <name>', 'a short name')
    .requiredOption(
      '--cron <expr>',
      'cron: 5 fields, 6 with seconds first, names (MON-FRI) or @daily (quote it); or --webhook instead',
    )
    // A webhook job has no cron: --webhook stands in for the required --cron.
    .addOption(
      new Option('--webhook <name>', 'instead of --cron: a signed POST /hooks/<name> starts a run').implies({
        cron: '',
      }),
    )
    .option('--secret-env <variable>', "with --webhook: the environment variable holding the hook's HMAC secret")
    .requiredOption('--prompt <text>', 'what the agent does each run ("/daily-digest" for a digest of the target)')
    .requiredOption('--target <conversation>', 'conversation key the result is posted to, e.g. telegram:-100123')
    .option('--timezone <zone>', "IANA time zone of the cron times (default: the machine's)")
    .option('--model <provider/model>', 'model (default: the configured one)')
    .option('--access <mode>', 'full | read-only | chat-only (default read-only)')
    .option('--timeout <duration>', 'run limit: milliseconds or 90s, 5m, 1h (default 5m)')
    .option('--budget <usd>', 'spend limit of one run in USD')
    .option('--overlap <policy>', 'skip | queue: a tick while the last run is going (default skip)')
    .option('--disabled', 'store it without scheduling it')
    .option('--format <format>', 'text | json', 'text')
    .action(async (flags: JobAddFlags) => {
      process.exitCode = await (await import('./job.ts')).jobAdd(flags, configFile());
    });
  job
    .command('list')
    .description('list the scheduled jobs')
    .option('--format <format>', 'text | json', 'text')
    .action(async (flags: { format?: string }) => {
      process.exitCode = await (await import('./job.ts')).jobList(flags, configFile());
    });
  job
    .command('edit <id>')
    .description('change a job: only the given fields, checked as add checks them')
    .option('--name <name>', 'a short name')
    .option('--cron <expr>', 'cron: 5 fields, 6 with seconds first, names (MON-FRI) or @daily (quote it)')
    .option('--webhook <name>', 'a signed POST /hooks/<name> starts a run instead of the cron')
    .option('--secret-env <variable>', "the environment variable holding the hook's HMAC secret")
    .option('--prompt <text>', 'what the agent does each run')
    .option('--target <conversation>', 'conversation key the result is posted to')
    .option('--timezone <zone>', 'IANA time zone of the cron times ("" for the machine\'s)')
    .option('--model <provider/model>', 'model ("" for the configured one)')
    .option('--access <mode>', 'full | read-only | chat-only')
    .option('--timeout <duration>', 'run limit: milliseconds or 90s, 5m, 1h')
    .option('--budget <usd>', 'spend limit of one run in USD')
    .option('--overlap <policy>', 'skip | queue')
    .option('--format <format>', 'text | json', 'text')
    .action(async (id: string, flags: JobEditFlags) => {
      process.exitCode = await (await import('./job.ts')).jobEdit(id, flags, configFile());
    });
  job
    .command('enable <id>')
    .description('schedule a disabled job again')
    .action(async (id: string) => {
      process.exitCode = await (await import('./job.ts')).jobSetEnabled(id, true, configFile());
    });
  job
    .command('disable <id>')
    .description('stop scheduling a job, keeping it and its logs')
    .action(async (id: string) => {
      process.exitCode = await (await import('./job.ts')).jobSetEnabled(id, false, configFile());
    });
  job
    .command('remove <id>')
    .description('remove a job and its logs')
    .action(async (id: string) => {
      process.exitCode = await (await import('./job.ts')).jobRemove(id, configFile());
    });
  job
    .command('run <id>')
    .description('run a job now, here, and print the result (not posted to the target)')
    .option('--format <format>', 'text | json', 'text')
    .action(async (id: string, flags: { format?: string }) => {
      process.exitCode = await (await import('./job.ts')).jobRun(id, flags, configFile());
    });
  job
    .command('logs <id>')
    .description('show the run logs of a job')
    .option('--limit <n>', 'only the newest n')
    .option('--format <format>', 'text | json', 'text')
    .action(async (id: string, flags: { format?: string; limit?: string }) => {
      process.exitCode = await (await import('./job.ts')).jobLogs(id, flags, configFile());
    });
}

/** Builds the program; `run` parses argv and returns the exit code. */
export function buildProgram(): Command {
  const program = new Command('boxbot')
    .description('Self-hosted chat bot gateway whose tools run in a WebAssembly sandbox')
    .version(packageVersion())
    .option('--config <file>', 'config file (default: $BOXBOT_CONFIG, else ./boxbot.config.json if present)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  // --config, else BOXBOT_CONFIG, else ./boxbot.config.json (decided by the loader).
  const configFile = () => program.opts<{ config?: string }>().config ?? readEnvSettings().configFile;
  // The .env beside the config (boxbot setup writes it) fills in what the environment leaves unset.
  program.hook('preAction', async () => {
    const { dotEnvPath, loadDotEnv } = await import('../config/dotenv.ts');
    const loaded = loadDotEnv(dotEnvPath(configFile()));
    if (loaded?.warning) process.stderr.write(`boxbot: ${loaded.warning}\n`);
    if (loaded?.loaded.length) registerSecrets(secretValues(readSecrets()));
  });
  program
    .command('init')
    .description('write a commented starter boxbot.config.json (or --config FILE); never overwrites')
    .action(async () => {
      process.exitCode = await (await import('./init.ts')).init(configFile());
    });
  program
    .command('setup')
    .description('first run: a model and the chat platforms, each checked; writes boxbot.config.json and .env')
    .option('--yes', 'ask nothing: choices from these flags, secrets from the environment (never from flags)')
    .option('--provider <name>', 'model provider (anthropic, openai, groq, ollama, ...)')
    .option('--model <provider/model>', "the model (default: the provider's usual one)")
    .option('--channels <list>', 'with --yes: telegram,discord,slack (tokens from TELEGRAM_BOT_TOKEN, ...)')
    .option('--no-check', 'write without calling the model or the platforms')
    .action(async (flags: SetupFlags) => {
      process.exitCode = await (await import('./setup.ts')).setup(configFile(), flags);
    });
  program
    .command('start')
    .description('run the gateway (web chat on 127.0.0.1 and every configured channel)')
    .option('--port <n>', 'HTTP port (default: $PORT, else config http.port, else 8787)')
    .option('--host <address>', 'HTTP address to listen on (default: config http.host, else 127.0.0.1)')
    .option(
      '--log-level <level>',
      'trace | debug | info | warn | error | fatal | silent (default: $LOG_LEVEL, else info)',
    )
    .action(async (flags: StartFlags) => {
      process.exitCode = await (await import('./start.ts')).start(configFile(), flags);
    });
  program
    .command('ask <prompt>')
    .description('one agent run; prints the final answer')
    .option('--model <provider/model>', 'model to use (default: config "model", else the first provider with a key)')
    .option('--access <mode>', 'full | read-only | chat-only', 'read-only')
    .option('--workdir <dir>', 'the folder tools may see (default: the current folder)')
    .option('--format <format>', 'text | json', 'text')
    .action(async (prompt: string, flags: AskFlags) => {
      process.exitCode = await (await import('./ask.ts')).ask(prompt, flags, configFile());
    });
  program
    .command('chat')
    .description('chat with the agent in the terminal')
    .option('--model <provider/model>', 'model to use')
    .option('--access <mode>', 'full | read-only | chat-only', 'read-only')
    .option('--workdir <dir>', 'the folder tools may see (default: the current folder)')
    .action(async (flags: AskFlags) => {
      process.exitCode = await (await import('./ask.ts')).chat(flags, configFile());
    });

  const tool = program.command('tool').description('WASM tools: list, validate, run');
  tool
    .command('list')
    .description('list the bundled and extension tools, and refused files with the reason')
    .option('--format <format>', 'text | json', 'text')
    .option('--bundled <dir>', 'bundled tools directory (default: the package tools/dist)')
    .action(async (flags: ToolListFlags) => {
      const { dataDir } = (await config()).loadConfig(configFile());
      const { toolList } = await import('./tool-list.ts');
      process.exitCode = await toolList(flags, dataDir, join(dataDir, 'cache', 'sandbox'));
    });
  tool
    .command('validate <file>')
    .description('check a tool and print its spec, or why it is refused')
    .option('--format <format>', 'text | json', 'text')
    .action(async (file: string, flags: ToolValidateFlags) => {
      const { dataDir } = (await config()).loadConfig(configFile());
      const [{ toolValidate }, { toolCacheDir }] = await Promise.all([
        import('./tool-validate.ts'),
        import('../agent/tools/locations.ts'),
      ]);
      process.exitCode = await toolValidate(file, flags, toolCacheDir(dataDir), join(dataDir, 'cache', 'sandbox'));
    });
  tool
    .command('run <file> [args...]')
    .description('run a .wasm tool in the sandbox with exactly the given grant')
    .option(
      '--dir <HOST[:GUEST][:ro|:rw]>',
      'mount a host directory, read-write unless :ro (repeatable; the first is the guest /)',
      collect,
      [],
    )
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
      // Without a config file the data dir is the user's (loadConfig): `--dir .` cannot expose it.
      const loaded = (await config()).loadConfig(configFile());
      const [{ toolRun }, { toolCacheDir }] = await Promise.all([
        import('./tool-run.ts'),
        import('../agent/tools/locations.ts'),
      ]);
      process.exitCode = await toolRun(
        file,
        args,
        flags,
        {
          cacheDir: join(loaded.dataDir, 'cache', 'sandbox'),
          protect: { dirs: [loaded.dataDir], noWrite: loaded.file ? [loaded.file] : [] },
        },
        toolCacheDir(loaded.dataDir),
      );
    });

  const skill = program.command('skill').description('skills');
  skill
    .command('list')
    .description('list the bundled and extension skills (source and hash), and skipped skills with the reason')
    .option('--format <format>', 'text | json', 'text')
    .action(async (flags: { format?: string }) => {
      const { dataDir } = (await config()).loadConfig(configFile());
      process.exitCode = await (await import('./skill-list.ts')).skillList(flags, dataDir);
    });
  skill
    .command('add')
    .description('install a skill from a folder, a .tar.gz or a git URL into the data dir, recording its hash')
    .argument('<source>', 'a folder, a .tar.gz file, or an http(s) git URL (optionally #ref)')
    .option('--replace', 'update an installed skill of the same name')
    .action(async (source: string, flags: { replace?: boolean }) => {
      const { dataDir } = (await config()).loadConfig(configFile());
      process.exitCode = await (await import('./skill-add.ts')).skillAdd(source, flags, dataDir);
    });
  skill
    .command('approve')
    .description("approve an installed skill's current content (after reviewing a change)")
    .argument('<name>', 'the skill')
    .action(async (name: string) => {
      const { dataDir } = (await config()).loadConfig(configFile());
      process.exitCode = await (await import('./skill-add.ts')).skillApprove(name, dataDir);
    });
  registerJobCommands(program.command('job').description('scheduled jobs'), configFile);
  const web = program.command('web').description('web chat users without a chat platform');
  web
    .command('invite <name>')
    .description('print a one-time link (10 minutes) that signs a browser in as web:<name>')
    .action(async (name: string) => {
      process.exitCode = await (await import('./web.ts')).webInvite(name, configFile());
    });
  web
    .command('revoke <name>')
    .description('end every web chat session of web:<name>')
    .action(async (name: string) => {
      process.exitCode = await (await import('./web.ts')).webRevoke(name, configFile());
    });
  program
    .command('outbox')
    .description('replies in the delivery outbox')
    .command('failed')
    .description('list the replies a platform refused for good (kept for inspection, never sent again)')
    .option('--format <format>', 'text | json', 'text')
    .action(async (flags: { format?: string }) => {
      process.exitCode = await (await import('./outbox.ts')).outboxFailed(flags, configFile());
    });
  program
    .command('doctor')
    .description('check config, tokens, providers, tools and store, and print what to fix')
    .option('--offline', 'contact nothing: keys and tokens are only checked to be set')
    .option('--format <format>', 'text | json', 'text')
    .action(async (flags: { offline?: boolean; format?: string }) => {
      process.exitCode = await (await import('./doctor.ts')).doctor(configFile(), {
        ...(flags.offline ? { offline: true } : {}),
        ...(flags.format !== undefined ? { format: flags.format } : {}),
      });
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
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help')
        return 0;
      return 2;
    }
    const message = errorMessage(e);
    process.stderr.write(`boxbot: ${redactSecrets(message)}\n`);
    // Loaded only now: an error's class decides the exit code, and these modules are cheap here.
    const [{ ConfigError }, { SandboxError }] = await Promise.all([config(), import('../sandbox/errors.ts')]);
    if (e instanceof UsageError || e instanceof ConfigError) return 2;
    if (e instanceof SandboxError && e.code === 'bad-grant') return 2;
    return 1;
  }
}
