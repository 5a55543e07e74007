// Applying a patch all or nothing, across a crash. The new contents are first staged in a journal folder beside
// the workspaces (out of every tool's reach); writing the journal's plan (renamed into place) is the commit point.
// Then each staged file is renamed over its place and each removal done, steps that are safe to repeat. If the
// process dies before the commit, the next start deletes the journal and the workspace is as it was; after it, the
// next start finishes the plan. A journal whose writer is still alive (this process, another thread of it, or
// another process) is left alone.
import { randomBytes } from 'node:crypto';
import { copyFile, lstat, mkdir, mkdtemp, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';

/** One step of a plan: write the staged file `i` at `path`, or remove `path`. */
interface Step {
  path: string;
  kind: 'write' | 'remove';
}

/** The journal's plan: written last, so its presence means every staged file is complete. */
interface Plan {
  workspace: string;
  steps: Step[];
}

/** Who is applying: a pid, and when that process started (pids are reused across restarts). */
interface Owner {
  pid: number;
  startedAt: number;
}

/** What to write: staged bytes at `path`, or a removal. */
export interface JournalChange {
  path: string;
  bytes?: Buffer;
}

/** Test seams for the crash test: before the commit point, and after each step of a plan. */
export interface JournalHooks {
  beforeCommit?: () => void | Promise<void>;
  afterStep?: (index: number) => void;
}

const JOURNALS = '.patch-journals';
const PLAN = 'plan.json';
const OWNER = 'owner.json';
/** Two readings of one process's start time differ by rounding only. */
const SAME_START_MS = 2000;

const processStart = () => Date.now() - process.uptime() * 1000;

/** Where the journals of `workspace` live: beside the workspaces (no conversation's folder has this name). */
export function journalRoot(workspace: string): string {
  return join(dirname(resolve(workspace)), JOURNALS);
}

/** The path of `rel` under `root`, refused when it leaves the root or passes through a link. */
export async function insideWorkspace(root: string, rel: string): Promise<string> {
  const full = resolve(root, rel);
  if (full !== root && !full.startsWith(root + sep)) throw new Error(`${rel}: outside the workspace`);
  for (let at = dirname(full); at.startsWith(root + sep); at = dirname(at)) {
    const st = await lstat(at).catch(() => undefined);
    if (st?.isSymbolicLink()) throw new Error(`${rel}: passes through a link`);
  }
  return full;
}

/** Writes `bytes` to `path` and flushes it to disk before the name is used. */
async function writeDurably(path: string, bytes: Buffer | string): Promise<void> {
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Moves the staged file over `full`: a rename, or across file systems a copy beside it renamed over it. */
async function moveInto(staged: string, full: string): Promise<void> {
  try {
    await rename(staged, full);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    const temp = `${full}.boxbot-patch-${randomBytes(4).toString('hex')}`;
    await copyFile(staged, temp);
    await rename(temp, full);
    await rm(staged, { force: true });
  }
}

/** Carries out `plan` from the start; steps already done are skipped (a staged file already moved is gone). */
async function rollForward(dir: string, plan: Plan, hooks: JournalHooks = {}): Promise<void> {
  const root = resolve(plan.workspace);
  for (const [i, step] of plan.steps.entries()) {
    const full = await insideWorkspace(root, step.path);
    if (step.kind === 'remove') await rm(full, { force: true });
    else {
      const staged = join(dir, String(i));
      const there = await lstat(staged).catch(() => undefined);
      if (there) {
        await mkdir(dirname(full), { recursive: true });
        await moveInto(staged, full);
      }
    }
    hooks.afterStep?.(i);
  }
}

/**
 * Writes `changes` into `workspace` all or nothing (a crash is finished or undone by `recoverPatchJournals`).
 * Example: `await applyJournaled(ws, [{ path: 'a.md', bytes }, { path: 'old.md' }])`.
 */
export async function applyJournaled(
  workspace: string,
  changes: JournalChange[],
  hooks: JournalHooks = {},
): Promise<void> {
  const root = resolve(workspace);
  const journals = journalRoot(root);
  await mkdir(journals, { recursive: true });
  const dir = await mkdtemp(join(journals, `${basename(root)}-`));
  const plan: Plan = { workspace: root, steps: [] };
  try {
    const owner: Owner = { pid: process.pid, startedAt: processStart() };
    await writeDurably(join(dir, OWNER), JSON.stringify(owner));
    for (const [i, c] of changes.entries()) {
      await insideWorkspace(root, c.path);
      if (c.bytes) await writeDurably(join(dir, String(i)), c.bytes);
      plan.steps.push({ path: c.path, kind: c.bytes ? 'write' : 'remove' });
    }
    await hooks.beforeCommit?.();
    await writeDurably(join(dir, `${PLAN}.tmp`), JSON.stringify(plan));
    await rename(join(dir, `${PLAN}.tmp`), join(dir, PLAN));
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  await rollForward(dir, plan, hooks);
  await rm(dir, { recursive: true, force: true });
}

/** Whether the process that wrote `owner` may still be working on its journal. */
function ownerAlive(owner: Owner | undefined): boolean {
  if (!owner) return false;
  if (owner.pid === process.pid) return Math.abs(owner.startedAt - processStart()) < SAME_START_MS;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** What recovery did: plans finished, and journals dropped before their commit point. */
export interface RecoveryReport {
  rolledForward: string[];
  rolledBack: string[];
  /** Journals that could not be finished (kept for the next start), with why. */
  failed: string[];
}

/**
 * Finishes or undoes the patches a crashed process left under `workspacesDir` (a workspace's parent), skipping
 * those whose writer is alive. Example: `await recoverPatchJournals(join(dataDir, 'workspaces'))` at start.
 */
export async function recoverPatchJournals(workspacesDir: string): Promise<RecoveryReport> {
  const report: RecoveryReport = { rolledForward: [], rolledBack: [], failed: [] };
  const journals = join(resolve(workspacesDir), JOURNALS);
  const entries = await readdir(journals, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const dir = join(journals, entry.name);
    if (ownerAlive(await readJson<Owner>(join(dir, OWNER)))) continue;
    const plan = await readJson<Plan>(join(dir, PLAN));
    try {
      if (plan && typeof plan.workspace === 'string' && Array.isArray(plan.steps)) {
        await rollForward(dir, plan);
        report.rolledForward.push(plan.workspace);
      } else report.rolledBack.push(entry.name);
      await rm(dir, { recursive: true, force: true });
    } catch (e) {
      report.failed.push(`${entry.name}: ${(e as Error).message}`);
    }
  }
  return report;
}
