// A skill folder in the open Agent Skills format (SKILL.md plus scripts/, references/, assets/)
// read whole under limits, and its content hash. The hash covers every file's path and bytes, so
// any change (an edited script, a file added or removed) changes it. Files are read the way a
// tool would see them (readWorkspaceFile): no symbolic links, regular files only, sizes capped.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readWorkspaceFile } from '../../sandbox/index.ts';

/** What a skill folder may hold at most. */
export const SKILL_LIMITS = {
  files: 200,
  fileBytes: 5 * 1024 * 1024,
  totalBytes: 20 * 1024 * 1024,
  depth: 8,
} as const;

/** One file of a skill, path relative to the folder with `/` separators. */
export interface SkillFile {
  path: string;
  bytes: Uint8Array;
}

/** A folder read whole: its files (sorted by path) and their hash. */
export interface SkillContent {
  files: SkillFile[];
  sha256: string;
}

/** Why a folder cannot be a skill (the message names the file and the limit). */
export class SkillFolderError extends Error {}

/** Names never taken into a skill (version-control data, editor litter). */
const IGNORED = new Set(['.git', '.DS_Store']);

/** The SHA-256 of a skill's files: each path and length and bytes, in path order. */
export function hashSkill(files: SkillFile[]): string {
  const h = createHash('sha256');
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    h.update(`${f.path}\0${f.bytes.length}\0`);
    h.update(f.bytes);
  }
  return h.digest('hex');
}

/** Reads every file below `dir`; throws SkillFolderError on a link, a special file or a limit passed. */
export function readSkillFolder(dir: string): SkillContent {
  const files: SkillFile[] = [];
  let total = 0;
  const walk = (rel: string, depth: number): void => {
    if (depth > SKILL_LIMITS.depth)
      throw new SkillFolderError(`${rel}: folders nest deeper than ${SKILL_LIMITS.depth}`);
    const entries = readdirSync(rel ? join(dir, rel) : dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    );
    for (const e of entries) {
      if (IGNORED.has(e.name)) continue;
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isSymbolicLink()) throw new SkillFolderError(`${path} is a symbolic link, which a skill may not hold`);
      if (e.isDirectory()) {
        walk(path, depth + 1);
        continue;
      }
      if (!e.isFile()) throw new SkillFolderError(`${path} is not a regular file`);
      if (files.length >= SKILL_LIMITS.files)
        throw new SkillFolderError(`more than ${SKILL_LIMITS.files} files (a skill holds at most that many)`);
      const r = readWorkspaceFile(dir, path, { maxBytes: SKILL_LIMITS.fileBytes });
      if (!r.ok) throw new SkillFolderError(`${path}: ${r.reason}`);
      total += r.bytes.length;
      if (total > SKILL_LIMITS.totalBytes)
        throw new SkillFolderError(`more than ${SKILL_LIMITS.totalBytes / 1024 / 1024} MB of files`);
      files.push({ path, bytes: r.bytes });
    }
  };
  walk('', 0);
  return { files, sha256: hashSkill(files) };
}

/** The files of a skill by kind: what the model is told it can read or run. */
export interface SkillResources {
  scripts: string[];
  references: string[];
  assets: string[];
}

/** Sorts a skill's file paths into its scripts, references and assets (other files are left out). */
export function resourcesOf(paths: string[]): SkillResources {
  const under = (p: string) => paths.filter((x) => x.startsWith(`${p}/`)).sort();
  return { scripts: under('scripts'), references: under('references'), assets: under('assets') };
}
