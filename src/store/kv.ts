// Small named state (polling offsets and the like) in one document, `kv.json`. What it holds can
// be rebuilt (an offset only saves refetching), so a corrupt file is moved aside and reported by
// Documents and the store goes on without it, instead of failing whoever asked (a channel's start).
// A key of the form `<kind>:<id>` (one per conversation, such as a workspace's record) is kept in
// a document of its own under `kv/<shard>/`: there are as many as conversations, and a write must
// not rewrite (and check) all of them. Such a key written by an earlier version is still read
// from kv.json until it is written again (those values are read from kv.json once: nothing puts
// them there any more).
import type { DocSpec, Documents } from './documents.ts';
import { StoreCorruptError } from './errors.ts';
import { encodeName, shardOf } from './names.ts';
import { keyedValueSchema, kvSchema } from './schemas.ts';
import type { JsonObject, JsonValue, KvStore } from './types.ts';

const SPEC: DocSpec = { path: 'kv.json', schema: kvSchema };
type Doc = { values: JsonObject };
type KeyedDoc = { key: string; value: JsonValue };

/** Whether `key` is one of many of its kind (`<kind>:<id>`), kept in a document of its own. */
const isKeyed = (key: string): boolean => key.includes(':');

function keyedSpec(key: string): DocSpec {
  return {
    path: `kv/${shardOf(key)}/${encodeName(key)}.json`,
    schema: keyedValueSchema,
    check: (data) =>
      (data as KeyedDoc).key === key ? undefined : `holds the value of ${JSON.stringify((data as KeyedDoc).key)}`,
  };
}

/** Runs `fn` again once the corrupt file it met has been moved aside (and reported). */
async function pastCorruption<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof StoreCorruptError)) throw e;
    return fn();
  }
}

/** The key-value store: one document for named state, one per key for keys of the form `<kind>:<id>`. */
export function createKv(docs: Documents): KvStore {
  const shared = async (key: string): Promise<JsonValue | undefined> => {
    const doc = await pastCorruption(() => docs.read<Doc>(SPEC));
    return doc && Object.hasOwn(doc.values, key) ? doc.values[key] : undefined;
  };
  // The `<kind>:<id>` values an earlier version left in kv.json, read at the first need; a failed
  // read is tried again at the next.
  let legacy: Promise<Map<string, JsonValue>> | undefined;
  const legacyValue = async (key: string): Promise<JsonValue | undefined> => {
    legacy ??= pastCorruption(() => docs.read<Doc>(SPEC)).then(
      (doc) => new Map(Object.entries(doc?.values ?? {}).filter(([k]) => isKeyed(k))),
      (e: unknown) => {
        legacy = undefined;
        throw e;
      },
    );
    return (await legacy).get(key);
  };
  return {
    async get(key) {
      if (!isKeyed(key)) return shared(key);
      const own = await pastCorruption(() => docs.read<KeyedDoc>(keyedSpec(key)));
      return own ? own.value : legacyValue(key);
    },
    async set(key, value) {
      if (isKeyed(key)) {
        await pastCorruption(() => docs.update<KeyedDoc>(keyedSpec(key), () => ({ key, value })));
        (await legacy?.catch(() => undefined))?.delete(key); // its own document holds it now
        return;
      }
      await pastCorruption(() =>
        docs.update<Doc>(SPEC, (cur) => ({ ...cur, values: { ...cur?.values, [key]: value } })),
      );
    },
  };
}
