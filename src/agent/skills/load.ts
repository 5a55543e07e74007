// Finds skills in skills/<name>/SKILL.md (bundled with boxbot) and
// <dataDir>/extensions/skills/<name>/SKILL.md (the user's). A malformed file is reported with
// the reason and skipped; it never stops the others from loading. SKILL.md files are read like
// a tool would see them (readWorkspaceFile): no symlink out of their folder, regular files only,
// size checked first.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../core/log.ts';
import { silentLogger } from '../../core/log.ts';
import { readWorkspaceFile } from '../../sandbox/index.ts';
import { parseSkill, type Skill, SkillError, type SkillSource } from './skill.ts';

/** The skills shipped with boxbot (the package's `skills/` folder). */
export const BUNDLED_SKILLS_DIR = fileURLToPath(new URL('../../../skills', import.meta.url));

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
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort();
    } catch {
      continue; // a missing directory simply has no skills
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
        byName.set(name, parseSkill(text, file, dir.source, name));
      } catch (e) {
        if (!(e instanceof SkillError)) throw e;
        problems.push({ file, reason: e.reason });
      }
    }
  }
  return { skills: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), problems };
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
