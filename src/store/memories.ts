// Long-term memories: one document per scope, `memories/<conversation|user>/<shard>/<name>.json`,
// so remembering touches one small file whatever the number of users and conversations.
import { type DocSpec, type Documents, UNCHANGED } from './documents.ts';
import { StoreError } from './errors.ts';
import { encodeName, shardOf } from './names.ts';
import { memoriesSchema } from './schemas.ts';
import type { MemoryRecord, MemoryScope, MemoryStore } from './types.ts';

type Doc = { scope: MemoryScope; memories: MemoryRecord[] };

const keyOf = (scope: MemoryScope): string => (scope.kind === 'user' ? scope.userKey : scope.conversationKey);
const same = (a: MemoryScope, b: MemoryScope): boolean => a.kind === b.kind && keyOf(a) === keyOf(b);

function spec(scope: MemoryScope): DocSpec {
  const key = keyOf(scope);
  return {
    path: `memories/${scope.kind}/${shardOf(key)}/${encodeName(key)}.json`,
    schema: memoriesSchema,
    check: (data) => (same((data as Doc).scope, scope) ? undefined : `holds memories of another ${scope.kind}`),
  };
}

/** Memories kept as documents. */
export function createMemories(docs: Documents): MemoryStore {
  return {
    async list(scope) {
      return (await docs.read<Doc>(spec(scope)))?.memories ?? [];
    },
    async add(record) {
      await docs.update<Doc>(spec(record.scope), (cur) => {
        if (cur?.memories.some((m) => m.id === record.id))
          throw new StoreError('invalid', `memory ${record.id} exists already`);
        return { scope: record.scope, memories: [...(cur?.memories ?? []), record] };
      });
    },
    async remove(scope, id) {
      let found = false;
      await docs.update<Doc>(spec(scope), (cur) => {
        const kept = cur?.memories.filter((m) => m.id !== id);
        found = !!cur && kept!.length < cur.memories.length;
        if (!found) return UNCHANGED;
        // An empty scope leaves no file behind.
        return kept!.length ? { ...cur!, memories: kept! } : undefined;
      });
      return found;
    },
    async clear(scope) {
      let n = 0;
      await docs.update<Doc>(spec(scope), (cur) => {
        n = cur?.memories.length ?? 0;
        return cur ? undefined : UNCHANGED;
      });
      return n;
    },
  };
}
