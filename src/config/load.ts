// Reads and validates the config file once, at start. Errors name the file, the field path
// and what was expected. This module (with env.ts) is the only reader of process.env.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { type ZodIssue, type ZodTypeAny, z } from 'zod';
import { BoxbotError, errorMessage } from '../errors.ts';
import { stripJsonComments } from './jsonc.ts';
import type { HttpOverride } from './overrides.ts';
import { type Config, configSchema } from './schema.ts';
import { closestKey } from './suggest.ts';

/** A config file that cannot be used, with every problem listed. */
export class ConfigError extends BoxbotError {
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
 * The per-user data folder: `$XDG_DATA_HOME/boxbot`, else `~/.local/share/boxbot`. Commands
 * that hand the current folder to tools (ask, chat, tool run) keep their data here when no
 * config file says otherwise, so a tool can never write the cache the host loads as code.
 */
export function userDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_DATA_HOME;
  // The XDG spec says a relative value is invalid and must be ignored.
  if (xdg && isAbsolute(xdg)) return join(xdg, 'boxbot');
  return join(env.HOME || homedir(), '.local', 'share', 'boxbot');
}

/** Options of loadConfig. */
export interface LoadOptions {
  /** Without a config file, keep data in userDataDir() instead of `<cwd>/data` (ask, chat, tool run). */
  standalone?: boolean;
  /** The environment userDataDir() reads (tests). */
  env?: NodeJS.ProcessEnv;
  /** `--host`/`--port`/`PORT` over the file's `http` section (see overrides.ts). */
  http?: HttpOverride;
}

/** Loads `file`, or ./boxbot.config.json if present, or the defaults. */
export function loadConfig(file?: string, cwd = process.cwd(), opts: LoadOptions = {}): LoadedConfig {
  const path = file ? resolve(cwd, file) : resolve(cwd, DEFAULT_FILE);
  let raw: unknown = {};
  let used: string | undefined;
  if (file || existsSync(path)) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new ConfigError(`cannot read config ${path}: ${(e as NodeJS.ErrnoException).code ?? errorMessage(e)}`);
    }
    try {
      // JSONC: comments and trailing commas are allowed (`boxbot init` writes a commented file).
      raw = JSON.parse(stripJsonComments(text));
    } catch (e) {
      throw new ConfigError(`config ${path} is not valid JSON: ${errorMessage(e)}`);
    }
    used = path;
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const where = used ?? 'defaults';
    throw new ConfigError(`invalid config ${where}:\n  ${parsed.error.issues.map(describe).join('\n  ')}`);
  }
  if (opts.http) parsed.data.http = { ...parsed.data.http, ...opts.http };
  if (!used && opts.standalone) return { config: parsed.data, file: undefined, dataDir: userDataDir(opts.env) };
  const base = used ? dirname(used) : cwd;
  return { config: parsed.data, file: used, dataDir: resolve(base, parsed.data.dataDir) };
}
