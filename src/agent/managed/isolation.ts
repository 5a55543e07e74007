// Where an executor works. `shared`: in the conversation's workspace itself (its writes land at
// once). `copy`: in a private copy of it (copy-on-write where the file system can), whose changes
// come back as a patch. `worktree`: in a checkout of the workspace's git HEAD, read through
// isomorphic-git (no git binary, no shell on the host), whose changes come back as a patch against
// the workspace as it is. Private folders are removed when the executor's patch has been taken.
import { constants } from 'node:fs';
import { cp, lstat, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DEFAULT_PATCH_LIMITS, PatchLimitError, type PatchLimits, type Snapshot, snapshot } from './patch.ts';

export type Isolation = 'shared' | 'copy' | 'worktree';

/** An executor's folder: where its tools see `/`, and what it started from (for a private one). */
export interface ExecutorFolder {
  dir: string;
  /** The files it started with; absent for `shared` (nothing to diff). */
  base?: Snapshot;
  /** Removes a private folder (nothing for `shared`). */
  dispose(): Promise<void>;
}

/** The private folders of a run live beside the workspaces, never inside one. */
function scratchRoot(workspace: string): string {
  return join(dirname(workspace), '.executors');
}

async function privateDir(workspace: string, name: string): Promise<string> {
  const root = scratchRoot(workspace);
  await mkdir(root, { recursive: true });
  return mkdtemp(join(root, `${name.replace(/[^a-zA-Z0-9_-]/g, '_')}-`));
}

/** The tracked files at the workspace's HEAD, written into `into`. */
async function checkoutHead(workspace: string, into: string, limits: PatchLimits): Promise<void> {
  const git = (await import('isomorphic-git')).default;
  const fs = await import('node:fs');
  const oid = await git.resolveRef({ fs, dir: workspace, ref: 'HEAD' });
  let files = 0;
  let bytes = 0;
  await git.walk({
    fs,
    dir: workspace,
    trees: [git.TREE({ ref: oid })],
    map: async (path, [entry]) => {
      if (!entry || path === '.') return true;
      const type = await entry.type();
      if (type !== 'blob') return true;
      // Links and submodules stay out: only regular files are checked out.
      const mode = await entry.mode();
      if (mode !== 0o100644 && mode !== 0o100755) return true;
      const content = await entry.content();
      if (!content) return true;
      files++;
      bytes += content.length;
      if (files > limits.maxFiles) throw new PatchLimitError(`more than ${limits.maxFiles} files at HEAD`);
      if (bytes > limits.maxBytes) throw new PatchLimitError(`more than ${limits.maxBytes} bytes at HEAD`);
      const target = join(into, path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
      return true;
    },
  });
}

/** Whether the workspace is a git repository (a `.git` folder at its top). */
export async function isGitRepository(workspace: string): Promise<boolean> {
  const st = await lstat(join(workspace, '.git')).catch(() => undefined);
  return !!st?.isDirectory();
}

/** Prepares the folder an executor named `name` works in under `isolation`. */
export async function prepareFolder(
  workspace: string,
  isolation: Isolation,
  name: string,
  limits = DEFAULT_PATCH_LIMITS,
): Promise<ExecutorFolder> {
  if (isolation === 'shared') {
    await mkdir(workspace, { recursive: true });
    return { dir: workspace, dispose: async () => {} };
  }
  if (isolation === 'worktree' && !(await isGitRepository(workspace)))
    throw new Error('isolation "worktree" needs the workspace to be a git repository (use "copy" otherwise)');
  await mkdir(workspace, { recursive: true });
  const dir = await privateDir(workspace, name);
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    if (isolation === 'copy')
      await cp(workspace, dir, {
        recursive: true,
        mode: constants.COPYFILE_FICLONE,
        // Links are not copied: a link in the copy could name a file outside it.
        filter: async (src) => !(await lstat(src)).isSymbolicLink(),
      });
    else await checkoutHead(workspace, dir, limits);
    return { dir, base: await snapshot(dir, limits), dispose };
  } catch (e) {
    await dispose();
    throw e;
  }
}
