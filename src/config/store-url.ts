// The database URL, if any: BOXBOT_DATABASE_URL first (it keeps the password out of the config
// file), then `store.url`. None means the embedded file store.
import type { Secrets } from './env.ts';
import type { Config } from './schema.ts';

/** The PostgreSQL URL this process should use, or undefined for the file store. */
export function databaseUrl(config: Config, secrets: Secrets): string | undefined {
  return secrets.BOXBOT_DATABASE_URL ?? config.store?.url;
}
