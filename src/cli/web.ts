// `boxbot web invite NAME` and `boxbot web revoke NAME`: web chat users without a chat platform.
// An invite prints a one-time link (10 minutes) that signs a browser in as `web:NAME`; revoking
// ends every session of that name and drops its unused links. Both write the store directly, so
// they work beside a running gateway (which reads sessions from the store at each request).
// Example: boxbot web invite ana
import { encodeUserKey } from '../adapters/identity.ts';
import { issueLoginLink } from '../adapters/web/index.ts';
import { readSecrets } from '../config/env.ts';
import { loadConfig } from '../config/load.ts';
import { publicBaseUrl } from '../config/public-url.ts';
import { databaseUrl } from '../config/store-url.ts';
import { UsageError } from '../core/errors.ts';
import { openStore, type Store } from '../store/index.ts';

const out = (s: string) => process.stdout.write(`${s}\n`);
/** A web-only user's name: what a person would type, nothing that needs escaping. */
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

function identityOf(name: string) {
  if (!NAME.test(name))
    throw new UsageError(
      `web user name ${JSON.stringify(name)}: expected 1-64 letters, digits, '.', '_' or '-', starting with a ` +
        'letter or digit',
    );
  return encodeUserKey({ platform: 'web', userId: name });
}

async function withStore<T>(configFile: string | undefined, fn: (store: Store, http: HttpConfig) => Promise<T>) {
  const loaded = loadConfig(configFile);
  const { store } = await openStore(databaseUrl(loaded.config, readSecrets()), loaded.dataDir);
  try {
    return await fn(store, loaded.config.http);
  } finally {
    await store.close();
  }
}
type HttpConfig = { host: string; port: number; publicUrl?: string | undefined };

/** `web invite NAME`: prints the link; exit 0. */
export async function webInvite(name: string, configFile?: string): Promise<number> {
  const identity = identityOf(name);
  return withStore(configFile, async (store, http) => {
    const { url, expiresAt } = await issueLoginLink(store.webSessions, identity, publicBaseUrl(http));
    out(url);
    out(`It signs one browser in as ${identity}, once, until ${new Date(expiresAt).toISOString()}.`);
    if (!http.publicUrl)
      out('(http.publicUrl is not set: the link names the server’s own address; set it to the address people use)');
    return 0;
  });
}

/** `web revoke NAME`: ends the sessions; exit 0. */
export async function webRevoke(name: string, configFile?: string): Promise<number> {
  const identity = identityOf(name);
  return withStore(configFile, async (store) => {
    const ended = await store.webSessions.revokeIdentity(identity);
    out(`${identity}: ${ended} session${ended === 1 ? '' : 's'} ended; unused invite links dropped.`);
    return 0;
  });
}
