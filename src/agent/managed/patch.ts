// An executor's changes as a patch: what its private folder holds that the snapshot it started
// from did not (files added, changed, removed), compared by SHA-256. The manager applies a patch
// or rejects it; applying checks, file by file, that the conversation's workspace still holds what
// the executor started from, and reports every conflict instead of overwriting (nothing is merged
// blindly). A patch applies once. Symbolic links are never followed or written.
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { applyJournaled, insideWorkspace, type JournalHooks } from './patch-journal.ts';

/** Bounds on what a snapshot walks and a patch carries (a folder is outside content too). */
export interface PatchLimits {
  maxFiles: number;
  maxBytes: number;
}

export const DEFAULT_PATCH_LIMITS: PatchLimits = { maxFiles: 5000, maxBytes: 64 * 1024 * 1024 };

/** `relative path → SHA-256` of every regular file under a folder. */
export type Snapshot = Map<string, string>;

/** One file's change. `bytes` is the new content (absent for a removal). */
export interface FileChange {
  path: string;
  kind: 'added' | 'changed' | 'removed';
  /** The hash it had when the executor started (absent for an added file). */
  before?: string;
  bytes?: Buffer;
}

/** What an executor changed, ready to apply to the workspace it was copied from. */
export interface Patch {
  id: string;
  executor: string;
  changes: FileChange[];
  state: 'pending' | 'applied' | 'rejected';
}

/** Thrown when a folder is beyond the limits; the message names which. */
export class PatchLimitError extends Error {}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Every regular file under `dir` (skipping `.git` and links), relative paths with `/`. */
export async function listFiles(dir: string, limits = DEFAULT_PATCH_LIMITS): Promise<string[]> {
  const out: string[] = [];
  const walk = async (at: string): Promise<void> => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const full = join(at, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) {
        out.push(relative(dir, full).split(sep).join('/'));
        if (out.length > limits.maxFiles) throw new PatchLimitError(`more than ${limits.maxFiles} files in ${dir}`);
      }
    }
  };
  await walk(dir);
  return out.sort();
}

/** The hashes of every file under `dir`. */
export async function snapshot(dir: string, limits = DEFAULT_PATCH_LIMITS): Promise<Snapshot> {
  const snap: Snapshot = new Map();
  let total = 0;
  for (const path of await listFiles(dir, limits)) {
    const bytes = await readFile(join(dir, path));
    total += bytes.length;
    if (total > limits.maxBytes) throw new PatchLimitError(`more than ${limits.maxBytes} bytes in ${dir}`);
    snap.set(path, sha256(bytes));
  }
  return snap;
}

/** What `dir` holds now against `base` (its state when the executor started), as a patch. */
export async function diffFolder(
  base: Snapshot,
  dir: string,
  ids: { id: string; executor: string },
  limits = DEFAULT_PATCH_LIMITS,
): Promise<Patch> {
  const changes: FileChange[] = [];
  let carried = 0;
  const now = new Set(await listFiles(dir, limits));
  for (const path of now) {
    const bytes = await readFile(join(dir, path));
    const hash = sha256(bytes);
    const before = base.get(path);
    if (before === hash) continue;
    carried += bytes.length;
    if (carried > limits.maxBytes) throw new PatchLimitError(`changes of more than ${limits.maxBytes} bytes`);
    changes.push(before ? { path, kind: 'changed', before, bytes } : { path, kind: 'added', bytes });
  }
  for (const [path, before] of base) if (!now.has(path)) changes.push({ path, kind: 'removed', before });
  changes.sort((a, b) => a.path.localeCompare(b.path));
  return { ...ids, changes, state: 'pending' };
}

/** The hash of the file at `path`, undefined when there is none, 'not-a-file' for anything else. */
async function currentHash(path: string): Promise<string | undefined> {
  const st = await lstat(path).catch(() => undefined);
  if (!st) return undefined;
  if (!st.isFile()) return 'not-a-file';
  return sha256(await readFile(path));
}

/** Why `change` cannot be applied to `workspace` as it is now, or undefined. */
async function conflictOf(workspace: string, change: FileChange): Promise<string | undefined> {
  let full: string;
  try {
    full = await insideWorkspace(workspace, change.path);
  } catch (e) {
    return (e as Error).message;
  }
  const now = await currentHash(full);
  if (change.kind === 'added') {
    if (now === undefined || (change.bytes && now === sha256(change.bytes))) return undefined;
    return `${change.path}: added by the executor, but the workspace has a different file there now`;
  }
  if (now === change.before) return undefined;
  if (now === undefined) return `${change.path}: ${change.kind} by the executor, but removed from the workspace since`;
  return `${change.path}: ${change.kind} by the executor, but changed in the workspace since it started`;
}

/** What applying a patch did: nothing at all when there were conflicts. */
export type ApplyResult = { applied: true; files: number } | { applied: false; conflicts: string[] };

/**
 * Applies `patch` to `workspace` when no file conflicts; otherwise changes nothing and names each
 * conflict. All or nothing even across a crash: staged in a journal first (patch-journal.ts).
 */
export async function applyPatch(patch: Patch, workspace: string, hooks?: JournalHooks): Promise<ApplyResult> {
  const root = resolve(workspace);
  const conflicts = (await Promise.all(patch.changes.map((c) => conflictOf(root, c)))).filter(
    (c): c is string => c !== undefined,
  );
  if (conflicts.length) return { applied: false, conflicts };
  const changes = patch.changes.map((c) =>
    c.kind === 'removed' ? { path: c.path } : { path: c.path, bytes: c.bytes ?? Buffer.alloc(0) },
  );
  await applyJournaled(root, changes, hooks);
  return { applied: true, files: patch.changes.length };
}

const MAX_SHOWN_LINES = 40;

/** A short diff of one text file: the lines between the common start and end, capped. */
function lineDiff(before: string, after: string): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const lines = [
    `@@ line ${start + 1} @@`,
    ...a.slice(start, endA).map((l) => `-${l}`),
    ...b.slice(start, endB).map((l) => `+${l}`),
  ];
  return lines.length > MAX_SHOWN_LINES
    ? [...lines.slice(0, MAX_SHOWN_LINES), `… ${lines.length - MAX_SHOWN_LINES} more lines`]
    : lines;
}

const isText = (b: Buffer) => !b.subarray(0, 8000).includes(0);

/** The patch for the manager to read: each file and, for text, what changed (against the workspace now). */
export async function describePatch(patch: Patch, workspace: string): Promise<string> {
  if (!patch.changes.length) return `${patch.id}: no changes`;
  const out = [`${patch.id} from ${patch.executor}: ${patch.changes.length} file(s)`];
  for (const c of patch.changes) {
    out.push(`${c.kind} ${c.path}${c.bytes ? ` (${c.bytes.length} bytes)` : ''}`);
    if (!c.bytes || !isText(c.bytes)) continue;
    const old = c.kind === 'changed' ? await readFile(join(workspace, c.path)).catch(() => Buffer.alloc(0)) : undefined;
    out.push(...lineDiff(old ? old.toString('utf8') : '', c.bytes.toString('utf8')).map((l) => `  ${l}`));
  }
  return out.join('\n');
}
