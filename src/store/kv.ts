// Small named state (polling offsets and the like) in one document, `kv.json`.
import { UNCHANGED, type DocSpec, type Documents } from './documents.ts';
import { checkKey } from './names.ts';
import { kvSchema } from './schemas.ts';
import type { JsonObject, KvStore } from './types.ts';

const SPEC: DocSpec = { path: 'kv.json', schema: kvSchema };
type Doc = { values: JsonObject };

/** The key-value store kept as one document. */
export function createKv(docs: Documents): KvStore {
  return {
    async get(key) {
      checkKey(key, 'kv key');
      const doc = await docs.read<Doc>(SPEC);
      return doc && Object.hasOwn(doc.values, key) ? doc.values[key] : undefined;
    },
    async set(key, value) {
      checkKey(key, 'kv key');
      await docs.update<Doc>(SPEC, (cur) => ({ ...cur, values: { ...cur?.values, [key]: value } }));
    },
    async delete(key) {
      checkKey(key, 'kv key');
      let existed = false;
      await docs.update<Doc>(SPEC, (cur) => {
        if (!cur || !Object.hasOwn(cur.values, key)) return UNCHANGED;
        existed = true;
        const { [key]: _gone, ...values } = cur.values;
        return { ...cur, values };
      });
      return existed;
    },
  };
}
