// Reads and validates the config file once, at start. Errors name the file, the field path
// and what was expected. This module (with env.ts) is the only reader of process.env.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ZodIssue } from 'zod';
import { BoxbotError } from '../errors.ts';
import { configSchema, type Config } from './schema.ts';

/** A config file that cannot be used, with every problem listed. */
export class ConfigError extends BoxbotError {
  constructor(message: string) {
    super('config', message);
  }
}

const DEFAULT_FILE = 'boxbot.config.json';

function describe(issue: ZodIssue): string {
  const path = issue.path.length ? issue.path.join('.') : '(top level)';
  if (issue.code === 'unrecognized_keys') return `${path}: unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  return `${path}: ${issue.message}`;
}

/** Loaded config plus where it came from (relative paths in it resolve against that folder). */
export interface LoadedConfig {
  config: Config;
  file: string | undefined;
  /** `dataDir` resolved to an absolute path. */
  dataDir: string;
}

/** Loads `file`, or ./boxbot.config.json if present, or the defaults. */
export function loadConfig(file?: string, cwd = process.cwd()): LoadedConfig {
  const path = file ? resolve(cwd, file) : resolve(cwd, DEFAULT_FILE);
  let raw: unknown = {};
  let used: string | undefined;
  if (file || existsSync(path)) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new ConfigError(`cannot read config ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new ConfigError(`config ${path} is not valid JSON: ${(e as Error).message}`);
    }
    used = path;
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const where = used ?? 'defaults';
    throw new ConfigError(`invalid config ${where}:\n  ${parsed.error.issues.map(describe).join('\n  ')}`);
  }
  const base = used ? dirname(used) : cwd;
  return { config: parsed.data, file: used, dataDir: resolve(base, parsed.data.dataDir) };
}
