// Finds skills in skills/<name>/SKILL.md (bundled with boxbot) and
// <dataDir>/extensions/skills/<name>/SKILL.md (the user's), each with its folder's scripts,
// references and assets. An installed skill whose content no longer matches the approved hash is
// refused. A malformed file is reported with the reason and skipped; it never stops the others.
// Files are read like a tool would see them (readWorkspaceFile): no symlink out of their folder,
// regular files only, size checked first.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { silentLogger } from '../../core/log.ts';
import { packagePath } from '../../core/package-paths.ts';
import { readWorkspaceFile } from '../../sandbox/index.ts';
import { readSkillRecords, type SkillRecord, skillRecordPath } from './approvals.ts';
import { readSkillFolder, resourcesOf, SkillFolderError } from './folder.ts';
import { parseSkill, type Skill, SkillError, type SkillSource } from './skill.ts';

/** The skills shipped with boxbot (the package's `skills/` folder). */
export const BUNDLED_SKILLS_DIR = packagePath('skills');

/** A SKILL.md that was skipped, and why. */
export interface SkillProblem {
  file: string;
  reason: string;
}

/** A directory of skill folders. */
export interface SkillDir {
  path: string;
  source: SkillSource;
}

/** The skills in effect and the files skipped. */
export interface SkillList {
  skills: Skill[];
  problems: SkillProblem[];
}

/** Largest SKILL.md accepted. */
const MAX_BYTES = 128 * 1024;

/** The standard directories for a data directory. */
export function skillDirs(dataDir: string, bundledDir = BUNDLED_SKILLS_DIR): SkillDir[] {
  return [
    { path: bundledDir, source: 'bundled' },
    { path: join(dataDir, 'extensions', 'skills'), source: 'extension' },
  ];
}

/** Loads every skill in `dirs`; later directories override earlier ones by name. */
export async function loadSkills(dirs: SkillDir[]): Promise<SkillList> {
  const byName = new Map<string, Skill>();
  const problems: SkillProblem[] = [];
  for (const dir of dirs) {
    let entries: string[];
    try {
      entries = (await readdir(dir.path, { withFileTypes: true }))
        // A dot folder is an install in progress (or hidden on purpose), never a skill.
        .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
        .map((e) => e.name)
        .sort();
    } catch {
      continue; // a missing directory simply has no skills
    }
    let records: Record<string, SkillRecord> = {};
    if (dir.source === 'extension') {
      try {
        records = readSkillRecords(dir.path);
      } catch (e) {
        // Without the record no installed skill can be checked: all of them wait for approval.
        problems.push({ file: skillRecordPath(dir.path), reason: errorMessage(e) });
      }
    }
    for (const name of entries) {
      const file = join(dir.path, name, 'SKILL.md');
      const read = readWorkspaceFile(dir.path, `${name}/SKILL.md`, { maxBytes: MAX_BYTES });
      if (!read.ok) {
        // A folder without SKILL.md is not a skill; one that cannot be read safely is reported.
        if (!read.missing) problems.push({ file, reason: read.reason });
        continue;
      }
      const text = new TextDecoder().decode(read.bytes);
      try {
        const skill = parseSkill(text, file, dir.source, name);
        const checked = withFolder(skill, join(dir.path, name), dir.source, records[name]);
        if (typeof checked === 'string') problems.push({ file, reason: checked });
        else byName.set(name, checked);
      } catch (e) {
        if (!(e instanceof SkillError)) throw e;
        problems.push({ file, reason: e.reason });
      }
    }
  }
  return { skills: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), problems };
}

/**
 * The skill with its folder's resources, or why it is refused. A bundled skill ships with boxbot.
 * An extension skill that is only a SKILL.md and was never recorded loads as before (instructions,
 * nothing to run); anything else must match the hash a person approved.
 */
function withFolder(skill: Skill, dir: string, source: SkillSource, record: SkillRecord | undefined): Skill | string {
  let content: ReturnType<typeof readSkillFolder>;
  try {
    content = readSkillFolder(dir);
  } catch (e) {
    return e instanceof SkillFolderError ? e.message : errorMessage(e);
  }
  const paths = content.files.map((f) => f.path);
  const base = { ...skill, dir, resources: resourcesOf(paths) };
  if (source === 'bundled') return base;
  if (!record) {
    if (paths.length === 1) return base;
    return (
      `holds ${paths.length - 1} file(s) besides SKILL.md and was never approved ` +
      `(install it with boxbot skill add, or review it and run boxbot skill approve ${skill.name})`
    );
  }
  if (record.sha256 !== content.sha256) {
    return (
      `changed since it was approved (sha256 ${content.sha256.slice(0, 12)}…, ` +
      `approved ${record.sha256.slice(0, 12)}…): ` +
      `review it, then run boxbot skill approve ${skill.name}`
    );
  }
  return { ...base, installed: { source: record.source, sha256: record.sha256 } };
}

/** `boxbot skill list`: the skills of a data directory (bundled + extensions) and the problems. */
export function listSkills(opts: { dataDir: string; bundledDir?: string }): Promise<SkillList> {
  return loadSkills(skillDirs(opts.dataDir, opts.bundledDir));
}

/** The skills a session can use; `reload()` rereads the directories. */
export interface SkillCatalog {
  list(): Skill[];
  get(name: string): Skill | undefined;
  problems(): SkillProblem[];
  reload(): Promise<SkillList>;
}

/** Creates a catalog over `dirs`; call `reload()` once before use. Problems are logged as warnings. */
export function createSkillCatalog(dirs: SkillDir[], log: Logger = silentLogger): SkillCatalog {
  let current: SkillList = { skills: [], problems: [] };
  return {
    list: () => current.skills,
    get: (name) => current.skills.find((s) => s.name === name),
    problems: () => current.problems,
    async reload() {
      current = await loadSkills(dirs);
      for (const p of current.problems) log.warn({ file: p.file, reason: p.reason }, 'skill skipped');
      return current;
    },
  };
}

/** A catalog over a fixed list (tests, embedding). */
export function staticSkillCatalog(skills: Skill[]): SkillCatalog {
  const list: SkillList = { skills, problems: [] };
  return {
    list: () => skills,
    get: (n) => skills.find((s) => s.name === n),
    problems: () => [],
    reload: async () => list,
  };
}
