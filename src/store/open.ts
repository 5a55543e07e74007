// Which backend a process uses: PostgreSQL when a database URL is configured (BOXBOT_DATABASE_URL
// or `store.url`), else the files under the data directory. The driver is loaded only when used.
import { createFileStore } from './create.ts';
import type { Store, StoreOptions } from './types.ts';

/** An open store and a line saying where it keeps its state (no password). */
export interface OpenedStore {
  store: Store;
  where: string;
}

/**
 * Opens the configured store: `url` (a `postgres://` URL) selects PostgreSQL, connected and migrated
 * before this resolves; without it, the file store under `dataDir`.
 */
export async function openStore(
  url: string | undefined,
  dataDir: string,
  opts: StoreOptions = {},
): Promise<OpenedStore> {
  if (!url) return { store: createFileStore(dataDir, opts), where: `files under ${dataDir}` };
  const { openPostgresStore, describeUrl } = await import('./postgres/index.ts');
  return { store: await openPostgresStore(url, opts), where: `PostgreSQL at ${describeUrl(url)}` };
}
