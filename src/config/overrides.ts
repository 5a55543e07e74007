// What `boxbot start` takes from flags and the environment over the config file. Precedence:
// flag > environment > config file > default (README, "Configuration").
import { UsageError } from '../core/errors.ts';
import type { EnvSettings } from './env.ts';

/** The level names `--log-level` and `LOG_LEVEL` accept (pino's). */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** The flags of `boxbot start` that override config or environment. */
export interface StartFlags {
  port?: string;
  host?: string;
  logLevel?: string;
}

/** Overrides of the config's `http` section (applied by loadConfig after validation). */
export interface HttpOverride {
  host?: string;
  port?: number;
}

/** The settings `boxbot start` runs with, once flags and environment are weighed. */
export interface StartSettings {
  logLevel: string;
  http: HttpOverride;
}

function portOf(value: string, source: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n > 65535)
    throw new UsageError(`${source} "${value}": expected a port number from 0 to 65535`);
  return n;
}

/** Weighs `flags` over `env`; a bad value is a UsageError naming the flag or variable it came from. */
export function startSettings(flags: StartFlags, env: EnvSettings): StartSettings {
  const [level, levelSource] = flags.logLevel
    ? [flags.logLevel, '--log-level']
    : env.logLevel
      ? [env.logLevel, 'LOG_LEVEL']
      : ['info', ''];
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new UsageError(`${levelSource} "${level}": expected one of ${LOG_LEVELS.join(', ')}`);
  const http: HttpOverride = {};
  if (flags.port !== undefined) http.port = portOf(flags.port, '--port');
  else if (env.port !== undefined) http.port = portOf(env.port, 'PORT');
  if (flags.host !== undefined) {
    if (!flags.host.trim()) throw new UsageError('--host "": expected a host name or address');
    http.host = flags.host;
  }
  return { logLevel: level, http };
}
