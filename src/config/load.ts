// Reads and validates the config file once, at start. Errors name the file, the field path
// and what was expected. This module (with env.ts) is the only reader of process.env.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { type ZodIssue, type ZodTypeAny, z } from 'zod';
import { BoxbotError, errorMessage } from '../core/errors.ts';
import { locateJsonError, stripJsonComments } from './jsonc.ts';
import type { HttpOverride } from './overrides.ts';
import { type Config, configSchema } from './schema.ts';
import { closestKey } from './suggest.ts';

/** A config file that cannot be used, with every problem listed. */
export class ConfigError extends BoxbotError<'config'> {
  constructor(message: string) {
    super('config', message);
  }
}

const DEFAULT_FILE = 'boxbot.config.json';

/** `s` without optional, nullable, default and effects wrappers. */
function unwrap(s: ZodTypeAny): ZodTypeAny {
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as ZodTypeAny;
    else if (s instanceof z.ZodDefault) s = s.removeDefault() as ZodTypeAny;
    else if (s instanceof z.ZodEffects) s = s.innerType() as ZodTypeAny;
    else return s;
  }
}

/** The object keys the schema allows at `path` (record keys are free, so they pass through). */
function knownKeys(schema: ZodTypeAny, path: (string | number)[]): string[] {
  let s = unwrap(schema);
  for (const segment of path) {
    let next: ZodTypeAny | undefined;
    if (s instanceof z.ZodObject) next = (s.shape as Record<string, ZodTypeAny>)[String(segment)];
    else if (s instanceof z.ZodRecord) next = s.valueSchema as ZodTypeAny;
    else if (s instanceof z.ZodArray) next = s.element as ZodTypeAny;
    if (!next) return [];
    s = unwrap(next);
  }
  return s instanceof z.ZodObject ? Object.keys(s.shape as object) : [];
}

function describe(issue: ZodIssue): string {
  const path = issue.path.length ? issue.path.join('.') : '(top level)';
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeys(configSchema, issue.path);
    const named = issue.keys.map((k) => {
      const near = closestKey(k, known);
      return near ? `"${k}" (did you mean "${near}"?)` : `"${k}"`;
    });
    return `${path}: unknown key(s) ${named.join(', ')}`;
  }
  return `${path}: ${issue.message}`;
}

/** Loaded config plus where it came from (relative paths in it resolve against that folder). */
export interface LoadedConfig {
  config: Config;
  file: string | undefined;
  /** `dataDir` resolved to an absolute path. */
  dataDir: string;
}

/**
 * The per-user data folder: `$XDG_DATA_HOME/boxbot`, else `~/.local/share/boxbot`. Every command
 * keeps its data here when no config file says otherwise (see loadConfig), so a tool handed the
 * current folder can never write the cache the host loads as code.
 */
export function userDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_DATA_HOME;
  // The XDG spec says a relative value is invalid and must be ignored.
  if (xdg && isAbsolute(xdg)) return join(xdg, 'boxbot');
  return join(env.HOME || homedir(), '.local', 'share', 'boxbot');
}

/** Options of loadConfig. */
export interface LoadOptions {
  /** The environment userDataDir() reads (tests). */
  env?: NodeJS.ProcessEnv;
  /** `--host`/`--port`/`PORT` over the file's `http` section (see overrides.ts). */
  http?: HttpOverride;
}

/**
 * Loads `file`, or ./boxbot.config.json if present, or the defaults. Where data lives follows one
 * rule for every command: a config file's `dataDir` (default `./data`, relative to the file's
 * folder); without a config file, the per-user folder (userDataDir()). `boxbot init` writes a
 * config file, which makes a folder a project with its data beside it.
 */
export function loadConfig(file?: string, cwd = process.cwd(), opts: LoadOptions = {}): LoadedConfig {
  const path = file ? resolve(cwd, file) : resolve(cwd, DEFAULT_FILE);
  let raw: unknown = {};
  let used: string | undefined;
  if (file || existsSync(path)) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new ConfigError(`config file ${path} does not exist (boxbot init writes one)`);
      throw new ConfigError(`cannot read config ${path}: ${code ?? errorMessage(e)}`);
    }
    // JSONC: comments and trailing commas are allowed (`boxbot init` writes a commented file).
    const json = stripJsonComments(text);
    try {
      raw = JSON.parse(json);
    } catch (e) {
      // V8 names a byte offset at best (often nothing): say the line and column instead.
      const at = locateJsonError(json);
      const where = at ? ` at line ${at.line}, column ${at.column}: ${at.problem}` : `: ${errorMessage(e)}`;
      throw new ConfigError(`config ${path} is not valid JSON${where}`);
    }
    used = path;
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const where = used ?? 'defaults';
    throw new ConfigError(`invalid config ${where}:\n  ${parsed.error.issues.map(describe).join('\n  ')}`);
  }
  if (opts.http) parsed.data.http = { ...parsed.data.http, ...opts.http };
  if (!used) return { config: parsed.data, file: undefined, dataDir: userDataDir(opts.env) };
  return { config: parsed.data, file: used, dataDir: resolve(dirname(used), parsed.data.dataDir) };
}

/** Where data lives and why, for the start banner and doctor: `<dir> (<which rule>)`. */
export function describeDataDir(loaded: LoadedConfig): string {
  return loaded.file
    ? `${loaded.dataDir} (dataDir of ${loaded.file})`
    : `${loaded.dataDir} (per-user folder: no boxbot.config.json here)`;
}

/**
 * A `./data` folder that an older boxbot (which kept data in the working folder without a config
 * file) left in `cwd`, when no config file now says to use it; undefined otherwise. The start
 * banner and doctor point at it, so conversations and jobs do not seem lost.
 */
export function strayDataDir(loaded: LoadedConfig, cwd = process.cwd()): string | undefined {
  if (loaded.file) return undefined;
  const old = resolve(cwd, 'data');
  if (old === loaded.dataDir) return undefined;
  return ['workspaces', 'cache', 'delivery.log'].some((n) => existsSync(join(old, n))) ? old : undefined;
}
