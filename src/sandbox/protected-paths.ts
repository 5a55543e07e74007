// Host paths no tool may ever be given: boxbot's data dir, the compile cache (whose glue the
// workers import as code) and the config file. A mount that contains one of them, or lies inside
// the data dir or the cache, would let a tool rewrite what the host later loads or trusts; such a
// grant is refused before any guest runs. Only the data dir's workspaces may be mounted from
// inside it.
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** What the host keeps out of every mount (all absolute host paths). */
export interface ProtectedPaths {
  /** Folders no mount may contain or lie inside (the data dir, the cache). */
  dirs: string[];
  /** Files no read-write mount may contain (the config file: reading it reveals no secret). */
  files: string[];
  /** Folders below a protected folder that may still be mounted (the data dir's workspaces). */
  mountableInside: string[];
}

/** The real path of `path`, or of its longest existing ancestor with the rest appended. */
export function realPathOf(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    if (parent === abs) return abs;
    return join(realPathOf(parent), basename(abs));
  }
}

/** Whether `path` is `root` or below it (both real, absolute). */
export function isWithin(path: string, root: string): boolean {
  if (root === '/') return true;
  return path === root || path.startsWith(`${root}/`);
}

/**
 * Why a mount of real host path `host` must be refused, or undefined when it is allowed.
 * Protected paths are resolved on every check: they may be created (or replaced by symlinks)
 * after the sandbox was set up.
 */
export function mountConflict(host: string, readOnly: boolean, p: ProtectedPaths): string | undefined {
  const inside = p.mountableInside.map(realPathOf);
  for (const dir of p.dirs.map(realPathOf)) {
    if (isWithin(dir, host)) return `contains ${dir}, which boxbot keeps out of every tool's reach`;
    if (isWithin(host, dir) && !inside.some((w) => isWithin(host, w) && isWithin(w, dir) && w !== dir)) {
      return `lies inside ${dir}, which boxbot keeps out of every tool's reach`;
    }
  }
  if (!readOnly) {
    for (const file of p.files.map(realPathOf)) {
      if (isWithin(file, host)) return `contains the config file ${file}, which no tool may write`;
    }
  }
  return undefined;
}
