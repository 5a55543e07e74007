// `boxbot setup`: the first run. Asks for a model provider and its key, then each chat
// platform's token, checks each against the service itself (a model call, getMe, auth.test,
// /users/@me) and writes boxbot.config.json (the model) and .env (the secrets, mode 0600), which
// every boxbot command then loads. `--yes` asks nothing: choices come from flags, secrets from
// the environment, never from flags (they would stay in the shell's history and in `ps`).
// Example: ANTHROPIC_API_KEY=... TELEGRAM_BOT_TOKEN=... boxbot setup --yes --channels telegram
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_MODELS, listProviders, PROVIDER_PRESETS, parseModelSpec } from '../agent/index.ts';
import { dotEnvPath, writeDotEnv } from '../config/dotenv.ts';
import { configuredKeyNames, readSecrets } from '../config/env.ts';
import { loadConfig } from '../config/load.ts';
import { type Config, configSchema } from '../config/schema.ts';
import { BoxbotError, UsageError } from '../core/errors.ts';
import { schemaPathFor } from './init.ts';
import { createPrompter, type Prompter } from './prompter.ts';
import {
  type CheckResult,
  checkDiscord,
  checkModel,
  checkSlack,
  checkSlackApp,
  checkTelegram,
} from './setup-checks.ts';
import { newConfigText, withModel } from './setup-config.ts';
import { starterConfig } from './starter-config.ts';

/** Flags of `boxbot setup`. */
export interface SetupFlags {
  /** Ask nothing: choices from the flags, secrets from the environment. */
  yes?: boolean;
  provider?: string;
  model?: string;
  /** With --yes: the platforms to turn on, comma-separated (telegram, discord, slack). */
  channels?: string;
  /** false with --no-check: write without contacting anything. */
  check?: boolean;
}

/** Where setup reads and writes (tests give their own). */
export interface SetupIo {
  env?: NodeJS.ProcessEnv;
  prompter?: Prompter;
  out?: NodeJS.WritableStream;
  cwd?: string;
}

/** A check that failed under --yes: nothing is written, exit 1. */
class SetupCheckError extends BoxbotError<'setup-check'> {
  constructor(message: string) {
    super('setup-check', message);
  }
}

/** One secret setup asks for: its variable, the question, and the check of a value. */
interface SecretAsk {
  name: string;
  question: string;
  what: string;
  required: boolean;
  test?: (value: string) => Promise<CheckResult>;
}

/** What every step shares. */
interface Ctx {
  config: Config;
  secrets: Record<string, string | undefined>;
  ask: Prompter | undefined;
  check: boolean;
  say: (line: string) => void;
  /** The secrets to write to .env. */
  values: Record<string, string>;
}

const PLATFORMS = ['telegram', 'discord', 'slack'] as const;
type Platform = (typeof PLATFORMS)[number];

/**
 * One secret: under --yes from the environment (checked; a failure ends setup), else asked until
 * its check passes or the answer is empty (skipped). The value is never printed.
 */
async function secret(ctx: Ctx, s: SecretAsk): Promise<string | undefined> {
  let current = ctx.secrets[s.name];
  for (;;) {
    const value = ctx.ask
      ? await ctx.ask.ask(`${s.question} (empty: skip)`, { secret: true, ...(current ? { default: current } : {}) })
      : current;
    if (!value) {
      if (!ctx.ask && s.required)
        throw new UsageError(
          `set ${s.name} in the environment: setup --yes reads secrets from there, never from flags`,
        );
      return undefined;
    }
    if (!ctx.check || !s.test) return value;
    const r = await s.test(value);
    ctx.say(`  ${r.ok ? 'ok  ' : 'FAIL'} ${s.what}: ${r.detail}`);
    if (r.ok) return value;
    if (!ctx.ask) throw new SetupCheckError(`${s.what} failed (${r.detail}); nothing was written`);
    ctx.say('  enter it again, or leave it empty to skip');
    current = undefined;
  }
}

/** Providers setup offers: the presets, then any the config defines. */
function providerNames(config: Config): string[] {
  return [...new Set([...Object.keys(PROVIDER_PRESETS), ...Object.keys(config.providers ?? {})])];
}

/** The provider: --provider, --model's, the config's, the first with a key set, else anthropic. */
async function chooseProvider(ctx: Ctx, flags: SetupFlags): Promise<string> {
  const names = providerNames(ctx.config);
  const withKey = listProviders({ config: ctx.config, secrets: ctx.secrets }).find((p) => p.keyRequired && p.hasKey);
  const modelOf = (spec: string | undefined) => (spec ? parseModelSpec(spec).providerName : undefined);
  let provider = flags.provider ?? modelOf(flags.model) ?? modelOf(ctx.config.model) ?? withKey?.name ?? 'anthropic';
  if (!ctx.ask) {
    if (!names.includes(provider))
      throw new UsageError(`--provider ${provider} is unknown; known: ${names.join(', ')}`);
    return provider;
  }
  for (;;) {
    provider = await ctx.ask.ask(`Model provider (${names.join(', ')})`, { default: provider });
    if (names.includes(provider)) return provider;
    ctx.say(`  unknown provider "${provider}"`);
  }
}

/** The `provider/model` to use: --model, the config's (same provider), the provider's default; asked unless --yes. */
async function chooseModel(ctx: Ctx, flags: SetupFlags, provider: string): Promise<string> {
  const fromConfig = ctx.config.model?.startsWith(`${provider}/`) ? ctx.config.model : undefined;
  let spec = flags.model ?? fromConfig ?? DEFAULT_MODELS[provider];
  for (;;) {
    if (ctx.ask) {
      const answer = await ctx.ask.ask(`Model (${provider}/<model>)`, spec ? { default: spec } : {});
      spec = answer ? (answer.includes('/') ? answer : `${provider}/${answer}`) : undefined;
    }
    if (spec && parseModelSpec(spec).providerName === provider && parseModelSpec(spec).model) return spec;
    const why = spec ? `${spec} is not a ${provider}/<model> name` : `a model name is needed for ${provider}`;
    if (!ctx.ask) throw new UsageError(`${why}: pass --model ${provider}/<model>`);
    ctx.say(`  ${why}`);
    spec = undefined;
  }
}

/** The model and its key, checked with one call; undefined model when the key was skipped. */
async function modelStep(ctx: Ctx, flags: SetupFlags): Promise<string | undefined> {
  const provider = await chooseProvider(ctx, flags);
  const spec = await chooseModel(ctx, flags, provider);
  const status = listProviders({ config: ctx.config, secrets: ctx.secrets }).find((p) => p.name === provider)!;
  const testWith = (key: string | undefined) => {
    const secrets = status.keyEnv && key ? { ...ctx.secrets, [status.keyEnv]: key } : ctx.secrets;
    return checkModel(spec, ctx.config, secrets);
  };
  if (!status.keyEnv || !status.keyRequired) {
    // A local server needs no key: one call says whether it is there.
    if (ctx.check) {
      const r = await testWith(undefined);
      ctx.say(`  ${r.ok ? 'ok  ' : 'FAIL'} model: ${r.detail}`);
      if (!r.ok && !ctx.ask) throw new SetupCheckError(`model failed (${r.detail}); nothing was written`);
      if (!r.ok) ctx.say('  start the server, then `boxbot doctor` checks it again');
    }
    return spec;
  }
  const key = await secret(ctx, {
    name: status.keyEnv,
    question: `${status.keyEnv} (the ${provider} API key)`,
    what: 'model',
    required: true,
    test: testWith,
  });
  if (!key) {
    ctx.say(`  no key: boxbot starts, and every chat says to set ${status.keyEnv}`);
    return spec;
  }
  ctx.values[status.keyEnv] = key;
  return spec;
}

/** One token a platform needs: how it is asked for, and its check against the platform. */
interface PlatformToken extends Omit<SecretAsk, 'required' | 'test'> {
  test: (value: string, channels: Config['channels']) => Promise<CheckResult>;
}

/** Each platform's tokens, in the order they are asked; the platform is on when all are given. */
const PLATFORM_TOKENS: Record<Platform, PlatformToken[]> = {
  telegram: [
    {
      name: 'TELEGRAM_BOT_TOKEN',
      question: 'Telegram bot token, from @BotFather',
      what: 'telegram getMe',
      test: (t, ch) => checkTelegram(t, ch.telegram?.apiRoot),
    },
  ],
  discord: [
    {
      name: 'DISCORD_BOT_TOKEN',
      question: 'Discord bot token, from the Developer Portal (Bot page)',
      what: 'discord /users/@me',
      test: (t, ch) => checkDiscord(t, ch.discord?.restApi),
    },
  ],
  slack: [
    {
      name: 'SLACK_BOT_TOKEN',
      question: 'Slack bot token (xoxb-...)',
      what: 'slack auth.test',
      test: (t, ch) => checkSlack(t, ch.slack?.apiUrl),
    },
    {
      name: 'SLACK_APP_TOKEN',
      question: 'Slack app-level token for Socket Mode (xapp-...)',
      what: 'slack apps.connections.open',
      test: (t, ch) => checkSlackApp(t, ch.slack?.apiUrl),
    },
  ],
};

/** What is said when a platform's first token was given and a later one was not. */
const LEFT_OFF: Partial<Record<Platform, string>> = {
  slack: '  Slack left off: Socket Mode needs the app-level token (HTTP mode: docs/chat-platforms.md)',
};

/** One platform's tokens, each checked against the platform; false when it was skipped. */
async function platformStep(ctx: Ctx, platform: Platform, wanted: boolean): Promise<boolean> {
  if (!ctx.ask && !wanted) return false;
  const channels = ctx.config.channels;
  const given: Record<string, string> = {};
  for (const [i, token] of PLATFORM_TOKENS[platform].entries()) {
    const value = await secret(ctx, { ...token, required: wanted, test: (v) => token.test(v, channels) });
    if (!value) {
      const why = LEFT_OFF[platform];
      if (i > 0 && why) ctx.say(why);
      return false;
    }
    given[token.name] = value;
  }
  Object.assign(ctx.values, given);
  return true;
}

/** --channels as platform names; an unknown one is a usage error. */
function wantedPlatforms(list: string | undefined): Set<Platform> {
  const names = (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of names)
    if (!(PLATFORMS as readonly string[]).includes(n))
      throw new UsageError(`--channels: unknown platform "${n}" (telegram, discord, slack)`);
  return new Set(names as Platform[]);
}

/** Writes `text` to `path` through a temp file renamed over it, keeping an existing file's mode. */
function replaceFile(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o644;
  rmSync(tmp, { force: true });
  writeFileSync(tmp, text, { mode, flag: 'wx' });
  renameSync(tmp, path);
}

/** Writes the config (new, or the model edited in) and says what it did. */
function writeConfig(path: string, existing: string | undefined, spec: string | undefined, say: Ctx['say']): void {
  if (existing === undefined) {
    writeFileSync(path, spec ? newConfigText(schemaPathFor(path), spec) : starterConfig(schemaPathFor(path)), {
      flag: 'wx',
    });
    say(`wrote ${path}${spec ? ` (model ${spec})` : ''}`);
    return;
  }
  if (!spec) return say(`kept ${path} as it is`);
  const edited = withModel(existing, spec);
  if (edited === existing) return say(`kept ${path} (model ${spec} already)`);
  if (edited === undefined) return say(`left ${path} alone: add "model": ${JSON.stringify(spec)} to it yourself`);
  replaceFile(path, edited);
  say(`updated ${path} (model ${spec})`);
}

/** Runs setup; resolves with the exit code. */
export async function setup(configFile: string | undefined, flags: SetupFlags = {}, io: SetupIo = {}): Promise<number> {
  const env = io.env ?? process.env;
  const out = io.out ?? process.stdout;
  const cwd = io.cwd ?? process.cwd();
  const path = resolve(cwd, configFile ?? 'boxbot.config.json');
  const existing = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  const config = existing !== undefined ? loadConfig(path, cwd).config : configSchema.parse({});
  const wanted = wantedPlatforms(flags.channels);
  if (!flags.yes && flags.channels) throw new UsageError('--channels goes with --yes (without it, setup asks)');
  const ctx: Ctx = {
    config,
    secrets: { ...readSecrets(env, configuredKeyNames(config)) },
    ask: flags.yes ? undefined : (io.prompter ?? createPrompter()),
    check: flags.check !== false,
    say: (line) => void out.write(`${line}\n`),
    values: {},
  };
  try {
    if (ctx.ask)
      ctx.say(
        'boxbot setup: a model, then the chat platforms; each is checked, then written to ' +
          `${path} and ${dotEnvPath(configFile, cwd)} (secrets, mode 0600). Enter keeps a [value].`,
      );
    const spec = await modelStep(ctx, flags);
    const on: Platform[] = [];
    for (const p of PLATFORMS) if (await platformStep(ctx, p, wanted.has(p))) on.push(p);
    writeConfig(path, existing, spec, ctx.say);
    const names = Object.keys(ctx.values);
    if (names.length) {
      const file = dotEnvPath(configFile, cwd);
      writeDotEnv(file, ctx.values);
      ctx.say(`wrote ${file} (mode 0600): ${names.join(', ')}`);
    }
    ctx.say(`channels: ${['web chat', ...on].join(', ')}${on.length ? ' (read-only until you set access)' : ''}`);
    ctx.say('next: boxbot start   (boxbot doctor checks it all again)');
    return 0;
  } finally {
    ctx.ask?.close();
  }
}
