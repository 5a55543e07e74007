// Conversation sessions: one document per key at `conversations/<shard>/<name>.json`, so a
// write touches one small file whatever the number of conversations, and no index exists.
import { platformOf } from '../adapters/index.ts';
import type { Message } from '../core/message.ts';
import { archiveIdBefore, archiveRecord } from './archive-record.ts';
import { type DocSpec, type Documents, UNCHANGED } from './documents.ts';
import { StoreCorruptError } from './errors.ts';
import { decodeName, encodeName, SHARDS, shardOf } from './names.ts';
import { isConversationShape } from './quick-shapes.ts';
import { archivedConversationSchema, conversationSchema } from './schemas.ts';
import type { ArchivedConversation, Conversation, ConversationStore } from './types.ts';

const DIR = 'conversations';
// Archived sessions: one folder per conversation, one document per session.
const ARCHIVE = 'archive';
const archiveDir = (key: string) => `${ARCHIVE}/${shardOf(key)}/${encodeName(key)}`;
const archiveSpec = (key: string, name: string): DocSpec => ({
  path: `${archiveDir(key)}/${name}`,
  schema: archivedConversationSchema,
});

function spec(key: string): DocSpec {
  return {
    path: `${DIR}/${shardOf(key)}/${encodeName(key)}.json`,
    schema: conversationSchema,
    quick: isConversationShape,
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

  /**
   * Clears what was copied to the archive, once the copy is durable, if the conversation is still
   * the session copied (same start, the copied messages first): a turn saved while the copy was
   * written stays, as the new session's. Anything else (a session started since, a history
   * rewritten) is left whole. Checked under the document's lock, so nothing read earlier decides.
   */
  async function clearCopied(key: string, copied: Pick<Conversation, 'createdAt' | 'messages'>, archivedAt: string) {
    const n = copied.messages.length;
    const prefix = JSON.stringify(copied.messages);
    await docs.update<Conversation>(spec(key), (c) => {
      if (!c || c.createdAt !== copied.createdAt || JSON.stringify(c.messages.slice(0, n)) !== prefix) return UNCHANGED;
      return { ...c, createdAt: archivedAt, updatedAt: archivedAt, messages: c.messages.slice(n) };
    });
  }

  /** The newest of the archive documents `names` (sorted) that can be read. */
  async function newestArchive(key: string, names: string[]): Promise<ArchivedConversation | undefined> {
    const name = names.at(-1);
    if (!name) return undefined;
    try {
      return await docs.read<ArchivedConversation>(archiveSpec(key, name));
    } catch (e) {
      if (!(e instanceof StoreCorruptError)) throw e;
      return undefined;
    }
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
    async archive(key, requestId) {
      const cur = await docs.read<Conversation>(spec(key));
      const earlier = await docs.files.list(archiveDir(key));
      // The documents' names sort in archiving order (ids sort by time).
      const prior = requestId ? await newestArchive(key, earlier.filter((n) => n.endsWith('.json')).sort()) : undefined;
      if (prior && prior.requestId === requestId) {
        // This /new archived before the process stopped (its reply not yet written): the copy is
        // kept, the clearing finished if it had not happened, and a session started since is left
        // alone (clearCopied tells them apart).
        await clearCopied(key, prior, prior.archivedAt);
        return prior;
      }
      if (!cur?.messages.length) return undefined;
      const archivedAt = stamp();
      const record = archiveRecord(key, cur, { at: now(), archivedAt, earlier: earlier.length, requestId });
      const { id } = record;
      await docs.update<ArchivedConversation>(archiveSpec(key, `${id}.json`), () => record);
      await clearCopied(key, cur, archivedAt);
      return record;
    },
    async archived(key) {
      const dir = archiveDir(key);
      const names = (await docs.files.list(dir)).filter((n) => n.endsWith('.json')).sort();
      const out: ArchivedConversation[] = [];
      for (const name of names) {
        try {
          const a = await docs.read<ArchivedConversation>(archiveSpec(key, name));
          if (a) out.push(a);
        } catch (e) {
          if (!(e instanceof StoreCorruptError)) throw e;
        }
      }
      return out;
    },
    async pruneArchives(before) {
      const cutoff = archiveIdBefore(before);
      let removed = 0;
      for (const shard of SHARDS)
        for (const dir of await docs.files.folders(`${ARCHIVE}/${shard}`))
          for (const name of await docs.files.list(`${ARCHIVE}/${shard}/${dir}`)) {
            if (!name.endsWith('.json') || name >= cutoff) continue;
            const path = `${ARCHIVE}/${shard}/${dir}/${name}`;
            if (await docs.locked(path, () => docs.files.remove(path))) removed++;
          }
      return removed;
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
      return out; // sorted by the store's wrapper
    },
  };
}
