// The channel log on files: one document per channel and hour posted,
// `channel-log/<shard>/<channel>/<YYYY-MM-DDTHH>.json`, so recording a message rewrites one small
// file whatever the number of channels, and retention deletes whole hours by their names.
import { z } from 'zod';
import type { ChannelLogEntry, ChannelLogStore } from './channel-log-types.ts';
import { type DocSpec, type Documents, UNCHANGED } from './documents.ts';
import { StoreCorruptError } from './errors.ts';
import { decodeName, encodeName, SHARDS, shardOf } from './names.ts';

const DIR = 'channel-log';
const HOUR_MS = 3600_000;

const entrySchema = z
  .object({
    channel: z.string(),
    messageId: z.string(),
    threadId: z.string().optional(),
    at: z.string(),
    editedAt: z.string().optional(),
    userId: z.string(),
    userName: z.string(),
    text: z.string(),
    files: z.array(z.string()).optional(),
    bot: z.boolean().optional(),
  })
  .strict();
const hourSchema = z.object({ channel: z.string(), entries: z.array(entrySchema) }).strict();
type Hour = z.infer<typeof hourSchema>;

/** The hour document name of an ISO time (`2026-11-27T20`); invalid times throw. */
function hourOf(at: string): string {
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) throw new RangeError(`not a time: ${JSON.stringify(at)}`);
  return new Date(ms).toISOString().slice(0, 13);
}

const channelDir = (channel: string): string => `${DIR}/${shardOf(channel)}/${encodeName(channel)}`;

function spec(channel: string, hour: string): DocSpec {
  return {
    path: `${channelDir(channel)}/${hour}.json`,
    schema: hourSchema,
    check: (d) => ((d as Hour).channel === channel ? undefined : `holds channel ${(d as Hour).channel}`),
  };
}

const byTime = (a: ChannelLogEntry, b: ChannelLogEntry): number =>
  a.at === b.at ? (a.messageId < b.messageId ? -1 : a.messageId > b.messageId ? 1 : 0) : a.at < b.at ? -1 : 1;

/** The channel log kept as hourly documents. */
export function createChannelLog(docs: Documents): ChannelLogStore {
  /** The hours the channel has documents for, sorted. */
  async function hours(channel: string): Promise<string[]> {
    return (await docs.files.list(channelDir(channel)))
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -5))
      .sort();
  }

  async function readHour(channel: string, hour: string): Promise<ChannelLogEntry[]> {
    try {
      return ((await docs.read<Hour>(spec(channel, hour)))?.entries ?? []) as ChannelLogEntry[];
    } catch (e) {
      if (e instanceof StoreCorruptError) return []; // moved aside and reported
      throw e;
    }
  }

  /** Runs `change` on the hour that holds `messageId`: the hour of `at` first, then its neighbours. */
  async function change(
    channel: string,
    messageId: string,
    at: string | undefined,
    fn: (e: ChannelLogEntry) => ChannelLogEntry | undefined,
  ): Promise<boolean> {
    const near = at
      ? [0, -1, 1].map((d) => new Date(Date.parse(at) + d * HOUR_MS).toISOString().slice(0, 13))
      : await hours(channel);
    for (const hour of near) {
      let found = false;
      await docs.update<Hour>(spec(channel, hour), (cur) => {
        const i = cur?.entries.findIndex((e) => e.messageId === messageId) ?? -1;
        if (!cur || i < 0) return UNCHANGED;
        found = true;
        const next = fn(cur.entries[i] as ChannelLogEntry);
        const entries = [...cur.entries];
        if (next) entries[i] = next;
        else entries.splice(i, 1);
        return entries.length ? { channel, entries } : undefined;
      });
      if (found) return true;
    }
    return false;
  }

  return {
    async put(entries) {
      const groups = new Map<string, ChannelLogEntry[]>();
      for (const entry of entries) {
        const e = { ...entry, at: new Date(Date.parse(entry.at)).toISOString() }; // throws on an invalid time
        const k = `${e.channel}\n${hourOf(e.at)}`;
        groups.set(k, [...(groups.get(k) ?? []), e]);
      }
      for (const [k, group] of groups) {
        const [channel = '', hour = ''] = k.split('\n');
        await docs.update<Hour>(spec(channel, hour), (cur) => {
          const ids = new Set(group.map((e) => e.messageId));
          const kept = (cur?.entries ?? []).filter((e) => !ids.has(e.messageId)) as ChannelLogEntry[];
          return { channel, entries: [...kept, ...group].sort(byTime) };
        });
      }
    },
    edit: (channel, edit) =>
      change(channel, edit.messageId, edit.at, (e) => {
        const { files: _files, ...rest } = e;
        const files = edit.files ?? e.files;
        return { ...rest, text: edit.text, editedAt: edit.editedAt, ...(files?.length ? { files } : {}) };
      }),
    remove: (channel, messageId, at) => change(channel, messageId, at, () => undefined),
    async list(channel, r) {
      const range = { from: new Date(r.from).toISOString(), to: new Date(r.to).toISOString() };
      const from = hourOf(range.from);
      const to = hourOf(range.to);
      const out: ChannelLogEntry[] = [];
      for (const hour of await hours(channel)) {
        if (hour < from || hour > to) continue;
        for (const e of await readHour(channel, hour)) if (e.at >= range.from && e.at < range.to) out.push(e);
      }
      return out.sort(byTime);
    },
    async oldest(channel) {
      for (const hour of await hours(channel)) {
        const first = (await readHour(channel, hour))[0];
        if (first) return first.at;
      }
      return undefined;
    },
    async channels() {
      const out: string[] = [];
      for (const shard of SHARDS)
        for (const dir of await docs.files.folders(`${DIR}/${shard}`)) {
          const name = decodeName(dir);
          if (name !== undefined) {
            out.push(name);
            continue;
          }
          // A long channel key: its folder name is a hash, the key is inside its documents.
          const first = (await docs.files.list(`${DIR}/${shard}/${dir}`)).find((n) => n.endsWith('.json'));
          const doc = first
            ? await docs
                .read<Hour>({ path: `${DIR}/${shard}/${dir}/${first}`, schema: hourSchema })
                .catch(() => undefined)
            : undefined;
          if (doc) out.push(doc.channel);
        }
      return out.sort();
    },
    async prune(channel, until) {
      const before = new Date(until).toISOString();
      const cutoff = hourOf(before);
      let removed = 0;
      for (const hour of await hours(channel)) {
        if (hour > cutoff) break;
        await docs.update<Hour>(spec(channel, hour), (cur) => {
          if (!cur) return UNCHANGED;
          const kept = cur.entries.filter((e) => e.at >= before);
          removed += cur.entries.length - kept.length;
          if (kept.length === cur.entries.length) return UNCHANGED;
          return kept.length ? { channel, entries: kept } : undefined;
        });
      }
      return removed;
    },
  };
}
