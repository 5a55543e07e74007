// Small named state (polling offsets and the like) in one document, `kv.json`. What it holds can
// be rebuilt (an offset only saves refetching), so a corrupt file is moved aside and reported by
// Documents and the store goes on without it, instead of failing whoever asked (a channel's start).
import type { DocSpec, Documents } from './documents.ts';
import { StoreCorruptError } from './errors.ts';
import { kvSchema } from './schemas.ts';
import type { JsonObject, KvStore } from './types.ts';

const SPEC: DocSpec = { path: 'kv.json', schema: kvSchema };
type Doc = { values: JsonObject };

/** Runs `fn` again once the corrupt file it met has been moved aside (and reported). */
async function pastCorruption<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof StoreCorruptError)) throw e;
    return fn();
  }
}

/** The key-value store kept as one document. */
export function createKv(docs: Documents): KvStore {
  return {
    async get(key) {
      const doc = await pastCorruption(() => docs.read<Doc>(SPEC));
      return doc && Object.hasOwn(doc.values, key) ? doc.values[key] : undefined;
    },
    async set(key, value) {
      await pastCorruption(() =>
        docs.update<Doc>(SPEC, (cur) => ({ ...cur, values: { ...cur?.values, [key]: value } })),
      );
    },
  };
}
