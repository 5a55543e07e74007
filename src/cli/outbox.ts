// `boxbot outbox failed`: the replies a platform refused for good (a chat that no longer exists, a
// message it will not take), kept for inspection within their retention; never delivered again.
// Safe beside a running gateway: the file store's delivery log is opened read-only.
// Example: boxbot outbox failed --format json
import { readSecrets } from '../config/env.ts';
import { loadConfig } from '../config/load.ts';
import { databaseUrl } from '../config/store-url.ts';
import { UsageError } from '../core/errors.ts';
import { type FailedReply, openStore } from '../store/index.ts';

const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);

/** One line of the text listing: when, where, what the platform said, and the start of the reply. */
function line(f: FailedReply): string {
  const text = f.text.replace(/\s+/g, ' ').trim();
  const files = f.files.length ? ` [+${f.files.length} file${f.files.length > 1 ? 's' : ''}]` : '';
  const start = text.length > 100 ? `${text.slice(0, 99)}…` : text;
  return `${f.failedAt}  ${f.conversationKey}  ${f.error}\n    ${start}${files}`;
}

/** `outbox failed`: prints the failed replies, newest first; exit 0. */
export async function outboxFailed(flags: { format?: string }, configFile?: string): Promise<number> {
  const format = flags.format ?? 'text';
  if (format !== 'text' && format !== 'json')
    throw new UsageError(`--format: expected text or json, got ${JSON.stringify(format)}`);
  const loaded = loadConfig(configFile);
  const { store } = await openStore(databaseUrl(loaded.config, readSecrets()), loaded.dataDir, { readOnly: true });
  try {
    const failed = await store.delivery.failedOutbox();
    if (format === 'json') out(JSON.stringify({ failed }, null, 2));
    else if (!failed.length) out('no failed replies (they are kept 7 days by default)');
    else out(failed.map(line).join('\n'));
    return 0;
  } finally {
    await store.close();
  }
}
