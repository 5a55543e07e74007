// Data written before the delivery log existed (`dedupe.log`, `inbound/*.json`, `outbox/*.json`):
// folded into the log's memory once at load, and the old files removed only after the log that
// now holds them was rewritten (a crash in between folds them in again, which changes nothing).
import type { Documents } from './documents.ts';
import { readFolder } from './documents.ts';
import { inboundSchema, outboxSchema, type StoredInbound, type StoredOutbox } from './schemas.ts';

/** The log's live state the old data is folded into. */
export interface LiveDelivery {
  /** id → ms; insertion order = time order. */
  seen: Map<string, number>;
  inbound: Map<string, StoredInbound>;
  outbox: Map<string, StoredOutbox>;
}

/** The old files found, to remove once the log holds what they held. */
export interface LegacyFiles {
  dedupe: boolean;
  inbound: string[];
  outbox: string[];
}

/** Folds the old layout into `live` (records the log already has win); undefined when there is none. */
export async function foldInLegacy(
  docs: Documents,
  live: LiveDelivery,
  now: () => number,
): Promise<LegacyFiles | undefined> {
  const { files } = docs;
  const { seen, inbound, outbox } = live;
  const legacy: LegacyFiles = { dedupe: false, inbound: [], outbox: [] };
  const old = await files.read('dedupe.log');
  if (old !== undefined) {
    legacy.dedupe = true;
    for (const line of old.split('\n')) {
      try {
        const [at, id] = JSON.parse(line) as [number, string];
        if (typeof at === 'number' && typeof id === 'string' && !seen.has(id)) seen.set(id, at);
      } catch {
        // a torn or bad line of the old log: skipped, the old file is removed afterwards
      }
    }
    const sorted = [...seen].sort((a, b) => a[1] - b[1]);
    seen.clear();
    for (const [id, at] of sorted) seen.set(id, at);
  }
  legacy.inbound = (await files.list('inbound')).filter((n) => n.endsWith('.json'));
  for (const r of await readFolder<StoredInbound>(docs, 'inbound', inboundSchema)) {
    if (inbound.has(r.id)) continue;
    inbound.set(r.id, r);
    if (!seen.has(r.id)) seen.set(r.id, Date.parse(r.acceptedAt) || now());
  }
  legacy.outbox = (await files.list('outbox')).filter((n) => n.endsWith('.json'));
  for (const e of await readFolder<StoredOutbox>(docs, 'outbox', outboxSchema))
    if (!outbox.has(e.id)) outbox.set(e.id, e);
  return legacy.dedupe || legacy.inbound.length > 0 || legacy.outbox.length > 0 ? legacy : undefined;
}

/** Removes the old files once the log that now holds their data is durable. */
export async function removeLegacy(docs: Documents, legacy: LegacyFiles | undefined): Promise<void> {
  if (!legacy) return;
  if (legacy.dedupe) await docs.files.remove('dedupe.log');
  for (const n of legacy.inbound) await docs.files.remove(`inbound/${n}`);
  for (const n of legacy.outbox) await docs.files.remove(`outbox/${n}`);
}
