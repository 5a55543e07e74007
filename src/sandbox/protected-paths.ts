// Host paths no tool may ever be given: boxbot's data dir, the compile cache (whose glue the
// workers import as code), and, for writing, the config file and boxbot's own code (its package
// and the node_modules it runs from: `npx boxbot ask --access full` in a project that installed
// boxbot must not let a tool rewrite boxbot). A mount that would let a tool rewrite what the host
// later loads or trusts is refused before any guest runs. Only the data dir's workspaces may be
// mounted from inside it. The bundled tools' shared compile cache (shared-cache.ts) is code the
// workers import, so it is kept out of writable mounts; it holds nothing but what the package's
// own tools compile to, so reading it (a read-only mount of a clone) is allowed.
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { PACKAGE_ROOT } from '../core/package-paths.ts';

/** What the host keeps out of every mount (all absolute host paths). */
export interface ProtectedPaths {
  /** Folders no mount may contain or lie inside (the data dir, the cache). */
  dirs: string[];
  /**
   * Paths no read-write mount may contain or lie inside (the config file, boxbot's code); reading them reveals no
   * secret.
   */
  noWrite: string[];
  /** Folders below a protected folder that may still be mounted (the data dir's workspaces). */
  mountableInside: string[];
}

/** The real path of `path`, or of its longest existing ancestor with the rest appended. */
export function realPathOf(path: string): string {
  const abs = resolve(path);
  try {
    // The native form is one libc call; the JS one lstats every component, on every tool call.
    return realpathSync.native(abs);
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
    for (const path of p.noWrite.map(realPathOf)) {
      if (isWithin(path, host)) return `contains ${path}, which no tool may write`;
      if (isWithin(host, path)) return `lies inside ${path}, which no tool may write`;
    }
  }
  return undefined;
}

/**
 * What of boxbot's package the host runs or trusts (code, bundled tools and skills, its
 * dependencies), and the node_modules folder it was installed into, if any.
 */
export function packageCodePaths(root = PACKAGE_ROOT): string[] {
  const own = ['dist', 'src', 'bin', 'node_modules', 'tools', 'skills', 'package.json'].map((n) => join(root, n));
  const parts = root.split(sep);
  const i = parts.lastIndexOf('node_modules');
  return i > 0 ? [...own, parts.slice(0, i + 1).join(sep)] : own;
}
