// The outbox: one document per outgoing final reply at `outbox/<name>.json`, written before
// the first chunk is sent; each sent chunk records its receipt, so a resumed entry skips it.
import { readFolder, UNCHANGED, type DocSpec, type Documents } from './documents.ts';
import { StoreError } from './errors.ts';
import { checkKey, encodeName } from './names.ts';
import { outboxSchema } from './schemas.ts';
import type { Outbox, OutboxEntry } from './types.ts';

const DIR = 'outbox';
type Stored = OutboxEntry & { seq: number };

function spec(id: string): DocSpec {
  checkKey(id, 'outbox id');
  return { path: `${DIR}/${encodeName(id)}.json`, schema: outboxSchema };
}

function publicEntry({ seq: _seq, ...entry }: Stored): OutboxEntry {
  return entry;
}

/** The outbox kept as documents. */
export function createOutbox(docs: Documents, now: () => number, seq: () => number): Outbox {
  const stamp = (): string => new Date(now()).toISOString();

  async function change(id: string, fn: (cur: Stored) => Stored): Promise<OutboxEntry> {
    const next = await docs.update<Stored>(spec(id), (cur) => {
      if (!cur) throw new StoreError('not-found', `no outbox entry ${JSON.stringify(id)}`);
      return { ...fn(cur), updatedAt: stamp() };
    });
    return publicEntry(next as Stored);
  }

  return {
    async put(entry) {
      checkKey(entry.conversationKey, 'conversation key');
      const stored = await docs.update<Stored>(spec(entry.id), (cur) => {
        if (cur) return UNCHANGED;
        const at = stamp();
        return {
          id: entry.id,
          conversationKey: entry.conversationKey,
          target: entry.target,
          chunks: entry.chunks.map((text) => ({ text })),
          state: 'pending',
          createdAt: at,
          updatedAt: at,
          seq: seq(),
        };
      });
      return publicEntry(stored as Stored);
    },
    async get(id) {
      const stored = await docs.read<Stored>(spec(id));
      return stored && publicEntry(stored);
    },
    recordReceipt: async (id, index, messageId) =>
      change(id, (cur) => {
        if (!Number.isInteger(index) || index < 0 || index >= cur.chunks.length) {
          throw new StoreError('not-found', `outbox entry ${JSON.stringify(id)} has no chunk ${index}`);
        }
        const chunks = cur.chunks.map((c, i) => (i === index ? { ...c, receipt: { messageId, sentAt: stamp() } } : c));
        return { ...cur, chunks };
      }),
    async markDone(id) {
      let existed = false;
      await docs.update<Stored>(spec(id), (cur) => {
        existed = cur !== undefined;
        return undefined;
      });
      return existed;
    },
    markFailed: async (id, error) => change(id, (cur) => ({ ...cur, state: 'failed', error })),
    async pending() {
      const all = await readFolder<Stored>(docs, DIR, outboxSchema);
      return all.filter((e) => e.state === 'pending').sort((a, b) => a.seq - b.seq).map(publicEntry);
    },
  };
}
