// Conversation sessions: one document per key at `conversations/<shard>/<name>.json`, so a
// write touches one small file whatever the number of conversations, and no index exists.
import { platformOf } from '../adapters/index.ts';
import type { Message } from '../agent/index.ts';
import { type DocSpec, type Documents, UNCHANGED } from './documents.ts';
import { StoreCorruptError } from './errors.ts';
import { checkKey, decodeName, encodeName, SHARDS, shardOf } from './names.ts';
import { conversationSchema } from './schemas.ts';
import type { Conversation, ConversationStore } from './types.ts';

const DIR = 'conversations';

function spec(key: string): DocSpec {
  checkKey(key, 'conversation key');
  return {
    path: `${DIR}/${shardOf(key)}/${encodeName(key)}.json`,
    schema: conversationSchema,
    check: (data) =>
      (data as Conversation).key === key
        ? undefined
        : `holds conversation ${JSON.stringify((data as Conversation).key)}`,
  };
}

/** Where a conversation's document lives, relative to the data directory (`/`-separated). */
export function conversationFile(key: string): string {
  return spec(key).path;
}

// Keys are parsed in one place only (adapters/conversation-key.ts); re-exported for the store's callers.
export { platformOf };

/** Conversations kept as documents. */
export function createConversations(docs: Documents, now: () => number): ConversationStore {
  const stamp = (): string => new Date(now()).toISOString();

  async function write(key: string, messages: Message[]): Promise<Conversation> {
    const c = await docs.update<Conversation>(spec(key), (cur) => {
      const at = stamp();
      const base = cur ?? { key, platform: platformOf(key), createdAt: at, updatedAt: at, messages: [] };
      return { ...base, updatedAt: at, messages: [...messages] };
    });
    return c as Conversation;
  }

  return {
    get: async (key) => docs.read<Conversation>(spec(key)),
    setMessages: (key, messages) => write(key, messages),
    async reset(key) {
      await docs.update<Conversation>(spec(key), (cur) =>
        cur ? { ...cur, updatedAt: stamp(), messages: [] } : UNCHANGED,
      );
    },
    async keys() {
      const out: string[] = [];
      // Shards are listed a few at a time: enough to overlap I/O without flooding it.
      for (let i = 0; i < SHARDS.length; i += 16) {
        const lists = await Promise.all(
          SHARDS.slice(i, i + 16).map((s) => docs.files.list(`${DIR}/${s}`).then((names) => ({ s, names }))),
        );
        for (const { s, names } of lists) {
          for (const name of names) {
            if (!name.endsWith('.json')) continue;
            const stem = name.slice(0, -5);
            const key = decodeName(stem);
            if (key !== undefined) out.push(key);
            else if (stem.startsWith('~')) {
              // A long key: its name is a hash, the key is inside.
              try {
                const c = await docs.read<Conversation>({ path: `${DIR}/${s}/${name}`, schema: conversationSchema });
                if (c) out.push(c.key);
              } catch (e) {
                if (!(e instanceof StoreCorruptError)) throw e; // reported and moved aside already
              }
            }
          }
        }
      }
      return out.sort();
    },
  };
}
