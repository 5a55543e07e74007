// The database URL, if any: BOXBOT_DATABASE_URL first (it keeps the password out of the config
// file), then `store.url`. None means the embedded file store. The config file's key is checked
// by the schema; the variable is checked here, so a wrong one is a config error (exit 2) naming
// the variable, not a connection attempt to whatever host it happens to name.
import type { Secrets } from './env.ts';
import { ConfigError } from './load.ts';
import type { Config } from './schema.ts';

const POSTGRES_URL = /^postgres(ql)?:\/\//;

/** The PostgreSQL URL this process should use, or undefined for the file store. */
export function databaseUrl(config: Config, secrets: Secrets): string | undefined {
  const fromEnv = secrets.BOXBOT_DATABASE_URL;
  if (fromEnv !== undefined && !POSTGRES_URL.test(fromEnv))
    throw new ConfigError(
      'BOXBOT_DATABASE_URL must be a postgres:// URL (its value is not shown: it holds a password)',
    );
  return fromEnv ?? config.store?.url;
}
