// The inbound journal: one document per accepted, unanswered message at `inbound/<name>.json`,
// written before the platform is acknowledged and deleted when the reply is delivered.
import { readFolder, UNCHANGED, type DocSpec, type Documents } from './documents.ts';
import { checkKey, encodeName } from './names.ts';
import { inboundSchema } from './schemas.ts';
import type { InboundJournal, InboundRecord } from './types.ts';

const DIR = 'inbound';
type Stored = InboundRecord & { seq: number };

function spec(id: string): DocSpec {
  checkKey(id, 'message id');
  return { path: `${DIR}/${encodeName(id)}.json`, schema: inboundSchema };
}

function publicRecord({ seq: _seq, ...record }: Stored): InboundRecord {
  return record;
}

/** The journal kept as documents. */
export function createInboundJournal(docs: Documents, now: () => number, seq: () => number): InboundJournal {
  return {
    async accept(record) {
      checkKey(record.conversationKey, 'conversation key');
      const stored = await docs.update<Stored>(spec(record.id), (cur) =>
        cur ? UNCHANGED : { id: record.id, conversationKey: record.conversationKey, acceptedAt: new Date(now()).toISOString(), seq: seq(), message: record.message },
      );
      return publicRecord(stored as Stored);
    },
    async done(id) {
      let existed = false;
      await docs.update<Stored>(spec(id), (cur) => {
        existed = cur !== undefined;
        return undefined;
      });
      return existed;
    },
    async pending() {
      const all = await readFolder<Stored>(docs, DIR, inboundSchema);
      return all.sort((a, b) => a.seq - b.seq).map(publicRecord);
    },
  };
}
