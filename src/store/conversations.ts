// Conversation sessions: one document per key at `conversations/<shard>/<name>.json`, so a
// write touches one small file whatever the number of conversations, and no index exists.
import { platformOf } from '../adapters/index.ts';
import type { Message } from '../agent/index.ts';
import { type DocSpec, type Documents, UNCHANGED } from './documents.ts';
import { StoreCorruptError } from './errors.ts';
import { fileStamp } from './files.ts';
import { checkKey, decodeName, encodeName, SHARDS, shardOf } from './names.ts';
import { archivedConversationSchema, conversationSchema } from './schemas.ts';
import type { ArchivedConversation, Conversation, ConversationStore } from './types.ts';

const DIR = 'conversations';
// Archived sessions: one folder per conversation, one document per session.
const ARCHIVE = 'archive';
const archiveDir = (key: string) => `${ARCHIVE}/${shardOf(key)}/${encodeName(key)}`;

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
    async setModel(key, model) {
      await docs.update<Conversation>(spec(key), (cur) => {
        const at = stamp();
        const base = cur ?? { key, platform: platformOf(key), createdAt: at, updatedAt: at, messages: [] };
        const { model: _old, ...rest } = base;
        return { ...rest, updatedAt: at, ...(model ? { model } : {}) };
      });
    },
    async archive(key) {
      const cur = await docs.read<Conversation>(spec(key));
      if (!cur?.messages.length) return undefined;
      const archivedAt = stamp();
      // The id sorts by time; the count of earlier archives breaks a tie within one millisecond.
      const earlier = await docs.files.list(archiveDir(key));
      const id = `${fileStamp(now())}-${String(earlier.length).padStart(4, '0')}`;
      const record: ArchivedConversation = { key, id, createdAt: cur.createdAt, archivedAt, messages: cur.messages };
      await docs.update<ArchivedConversation>(
        { path: `${archiveDir(key)}/${id}.json`, schema: archivedConversationSchema },
        () => record,
      );
      // Cleared only once the copy is durable, and only of what was copied: a turn saved while the
      // copy was written (its history then starts with the copied one) stays, as the new session's.
      const copied = JSON.stringify(cur.messages);
      await docs.update<Conversation>(spec(key), (c) => {
        if (!c) return UNCHANGED;
        const n = cur.messages.length;
        const later = JSON.stringify(c.messages.slice(0, n)) === copied ? c.messages.slice(n) : [];
        return { ...c, createdAt: archivedAt, updatedAt: archivedAt, messages: later };
      });
      return record;
    },
    async archived(key) {
      checkKey(key, 'conversation key');
      const dir = archiveDir(key);
      const names = (await docs.files.list(dir)).filter((n) => n.endsWith('.json')).sort();
      const out: ArchivedConversation[] = [];
      for (const name of names) {
        try {
          const a = await docs.read<ArchivedConversation>({
            path: `${dir}/${name}`,
            schema: archivedConversationSchema,
          });
          if (a) out.push(a);
        } catch (e) {
          if (!(e instanceof StoreCorruptError)) throw e;
        }
      }
      return out;
    },
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
