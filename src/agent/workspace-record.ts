// Who put content into a conversation's workspace, kept by the host in the store, outside the
// workspace (a tool can rewrite anything inside it): who uploaded which file, whose runs could
// write there, and whether a run wrote there after it had read untrusted content. Files stay
// after /new, so a run that reads the workspace reads all of theirs: for approvals.afterUntrusted
// that is untrusted unless every bit of it is the requester's own.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { JsonValue, KvStore } from '../store/index.ts';
import type { WorkspaceTrust } from './loop/tool-set.ts';

/** What the store keeps for one workspace. */
export interface WorkspaceRecord {
  /** Recent uploads, oldest first: path below the workspace → the user who sent it (at most MAX_FILES). */
  files: Record<string, string>;
  /** Every user who uploaded a file there or whose run could write there. */
  users: string[];
  /** A run wrote there after it had read untrusted content. */
  untrustedWrites?: true;
  /** The workspace of a shared conversation held files when the record began: nobody knows whose. */
  unknownContent?: true;
}

/** Uploads named in a record (older ones still count through `users`). */
const MAX_FILES = 100;

const keyOf = (conversationKey: string) => `workspace-record:${conversationKey}`;

/** Whether `v` is a record this module wrote (anything else is treated as no record). */
function isRecord(v: JsonValue | undefined): v is JsonValue & WorkspaceRecord {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.files === 'object' &&
    r.files !== null &&
    !Array.isArray(r.files) &&
    Array.isArray(r.users) &&
    r.users.every((u) => typeof u === 'string')
  );
}

/** Reads and adds to workspace records; one update of a workspace at a time in this process. */
export interface WorkspaceRecords {
  /** The record, undefined if none was kept (a workspace from before records, or a store that lost it). */
  get(conversationKey: string): Promise<WorkspaceRecord | undefined>;
  /** Records files `userId` sent, saved at `paths` (below the workspace). */
  uploaded(conversationKey: string, userId: string, paths: string[]): Promise<void>;
  /** Records that a run of `userId` is about to write there, `tainted` if it read untrusted content. */
  writing(conversationKey: string, userId: string, tainted: boolean): Promise<void>;
  /** Starts a record (empty, or holding files whose senders were never recorded), unless one exists. */
  begin(conversationKey: string, unknownContent: boolean): Promise<void>;
}

/** Records in `kv`. */
export function createWorkspaceRecords(kv: KvStore): WorkspaceRecords {
  const chains = new Map<string, Promise<unknown>>();
  const get = async (key: string) => {
    const v = await kv.get(keyOf(key));
    return isRecord(v) ? v : undefined;
  };
  function update(key: string, change: (r: WorkspaceRecord) => WorkspaceRecord | undefined): Promise<void> {
    const prev = chains.get(key) ?? Promise.resolve();
    const next = prev
      .catch(() => undefined)
      .then(async () => {
        const cur = (await get(key)) ?? { files: {}, users: [] };
        const changed = change(cur);
        if (changed) await kv.set(keyOf(key), changed as unknown as JsonValue);
      });
    chains.set(key, next);
    void next.finally(() => chains.get(key) === next && chains.delete(key)).catch(() => undefined);
    return next;
  }
  const withUser = (r: WorkspaceRecord, userId: string) => (r.users.includes(userId) ? r.users : [...r.users, userId]);
  return {
    get,
    uploaded(key, userId, paths) {
      if (!paths.length) return Promise.resolve();
      return update(key, (r) => {
        const files = { ...r.files };
        for (const p of paths) {
          delete files[p];
          files[p] = userId;
        }
        const kept = Object.entries(files).slice(-MAX_FILES);
        return { ...r, files: Object.fromEntries(kept), users: withUser(r, userId) };
      });
    },
    writing(key, userId, tainted) {
      return update(key, (r) => {
        if (r.users.includes(userId) && (!tainted || r.untrustedWrites)) return undefined;
        return { ...r, users: withUser(r, userId), ...(tainted || r.untrustedWrites ? { untrustedWrites: true } : {}) };
      });
    },
    async begin(key, unknownContent) {
      if (await get(key)) return;
      await update(key, (r) => (unknownContent ? { ...r, unknownContent: true } : r));
    },
  };
}

/**
 * Why the workspace's files are untrusted for a run of `requester` (undefined: all of it is theirs).
 * Example: workspaceTaint(record, 'ann') → 'files other users put in … (inbox/notes.txt from bob)'
 */
export function workspaceTaint(record: WorkspaceRecord | undefined, requester: string): string | undefined {
  if (!record) return undefined;
  if (record.unknownContent)
    return 'files in this conversation’s workspace saved before boxbot recorded who put them there';
  const others = record.users.filter((u) => u !== requester);
  const theirs = Object.entries(record.files)
    .filter(([, u]) => u !== requester)
    .slice(-3)
    .map(([p, u]) => `${p} from ${u}`);
  if (others.length)
    return `files other users put in this conversation’s workspace${theirs.length ? ` (${theirs.join(', ')})` : ''}`;
  if (record.untrustedWrites) return 'files written in this conversation’s workspace after reading untrusted content';
  return undefined;
}

/** Whether the folder `workspace` holds anything but the files at `paths` (below it) and their folders. */
export async function holdsOtherThan(workspace: string, paths: string[]): Promise<boolean> {
  const mine = new Set(paths.map((p) => p.split('/').filter(Boolean).join('/')));
  const dirs = new Set(
    [...mine].flatMap((p) =>
      p
        .split('/')
        .slice(0, -1)
        .map((_, i, a) => a.slice(0, i + 1).join('/')),
    ),
  );
  const walk = async (rel: string): Promise<boolean> => {
    const entries = await readdir(rel ? join(workspace, rel) : workspace, { withFileTypes: true });
    for (const e of entries) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (mine.has(p)) continue;
      if (!dirs.has(p) || !e.isDirectory()) return true;
      if (await walk(p)) return true;
    }
    return false;
  };
  return walk('');
}

/** Who sent a message, where: what the record needs of it. */
interface Sender {
  conversationKey: string;
  userId: string;
  isDirect: boolean;
}

/**
 * Records the files `message` brought (saved at `paths`). A shared conversation's workspace that
 * holds other files when its record begins (boxbot recorded no senders before) is marked as
 * holding files of unknown senders; a direct conversation's are its one user's. A record that
 * would hold nothing is not begun (it reads as no record: no taint), so a conversation without
 * files costs no write: its workspace is looked at again when something is to be recorded.
 */
export async function recordUploads(
  records: WorkspaceRecords,
  message: Sender,
  workspace: string,
  paths: string[],
): Promise<void> {
  // A direct message without files has nothing to record: with a record, no upload to add; without
  // one, no other sender's files to mark (it is begun at the first file). The run reads it anyway.
  if (message.isDirect && !paths.length) return;
  const key = message.conversationKey;
  if (!(await records.get(key))) {
    const unknownContent = !message.isDirect && (await holdsOtherThan(workspace, paths));
    if (!unknownContent && !paths.length) return;
    await records.begin(key, unknownContent);
  }
  await records.uploaded(key, message.userId, paths);
}

/**
 * The workspace as far as taint goes for a run of `message`'s sender: untrusted unless all of its
 * content is theirs; a record that cannot be read counts as others' content.
 */
export async function workspaceTrust(records: WorkspaceRecords, message: Sender, log: Logger): Promise<WorkspaceTrust> {
  const key = message.conversationKey;
  const writing = (tainted: boolean) => records.writing(key, message.userId, tainted);
  try {
    const untrusted = workspaceTaint(await records.get(key), message.userId);
    return { writing, ...(untrusted ? { untrusted } : {}) };
  } catch (e) {
    log.warn({ conversation: key, err: errorMessage(e) }, 'workspace record not read');
    return { writing, untrusted: 'files in this conversation’s workspace (who put them there could not be read)' };
  }
}
