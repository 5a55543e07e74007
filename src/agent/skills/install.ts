// `boxbot skill add <folder | .tar.gz | git URL>`: reads a skill from where it is, under limits,
// into <dataDir>/extensions/skills/<name>/, and records its source and content hash (the
// approval). Nothing from the source is executed here. A tarball is parsed entry by entry and
// only regular files and folders at plain relative paths are taken (no links, devices, absolute
// paths or `..`); a git repository is cloned with isomorphic-git (no shell, no hooks) over http(s).
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { ReadEntry } from 'tar';
import { readSkillRecords, type SkillRecord, writeSkillRecord } from './approvals.ts';
import { hashSkill, readSkillFolder, SKILL_LIMITS, type SkillFile, SkillFolderError } from './folder.ts';
import { parseSkill, SkillError } from './skill.ts';
import { unrunnableScripts } from './skill-run.ts';

/** Largest tarball read (compressed). */
const MAX_TARBALL_BYTES = 20 * 1024 * 1024;

/** Why an install was refused (one line for the CLI). */
export class SkillInstallError extends Error {}

/** What `installSkill` did. */
export interface InstalledSkill {
  name: string;
  dir: string;
  record: SkillRecord;
  replaced: boolean;
  /** Scripts the sandbox cannot run (Python), with why. */
  notes: string[];
}

/** Where a source is: a git URL, a tarball or a folder. */
export function sourceKind(source: string): 'git' | 'tarball' | 'folder' {
  if (/^(https?:\/\/|git\+https?:\/\/)/.test(source)) return /\.(tar\.gz|tgz)$/.test(source) ? 'tarball' : 'git';
  return /\.(tar\.gz|tgz|tar)$/.test(source) ? 'tarball' : 'folder';
}

/** A tarball entry's path made plain, or why it is refused. */
function entryPath(raw: string): string {
  const p = raw.replace(/\\/g, '/');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) throw new SkillInstallError(`${raw}: absolute paths are refused`);
  const parts = p.split('/').filter((x) => x !== '' && x !== '.');
  if (parts.includes('..')) throw new SkillInstallError(`${raw}: paths leading out of the skill (..) are refused`);
  return parts.join('/');
}

/** The files of a tarball, read under the skill limits; links and special entries refuse the whole tarball. */
export async function readTarball(bytes: Uint8Array): Promise<SkillFile[]> {
  // Imported here, not at the top: every process that loads the agent would load tar otherwise.
  const { Parser } = await import('tar');
  const files: SkillFile[] = [];
  let total = 0;
  await new Promise<void>((done, fail) => {
    const parser = new Parser({
      strict: true,
      onReadEntry(entry: ReadEntry) {
        try {
          const path = entryPath(entry.path);
          if (entry.type === 'Directory') return void entry.resume();
          if (entry.type !== 'File' && entry.type !== 'OldFile' && entry.type !== 'ContiguousFile')
            throw new SkillInstallError(`${entry.path}: a ${entry.type} entry is refused (only files and folders)`);
          if (path.split('/').length > SKILL_LIMITS.depth + 1)
            throw new SkillInstallError(`${entry.path}: folders nest deeper than ${SKILL_LIMITS.depth}`);
          if (files.length >= SKILL_LIMITS.files)
            throw new SkillInstallError(`more than ${SKILL_LIMITS.files} files (a skill holds at most that many)`);
          if ((entry.size ?? 0) > SKILL_LIMITS.fileBytes)
            throw new SkillInstallError(`${entry.path}: larger than ${SKILL_LIMITS.fileBytes / 1024 / 1024} MB`);
          total += entry.size ?? 0;
          if (total > SKILL_LIMITS.totalBytes)
            throw new SkillInstallError(`more than ${SKILL_LIMITS.totalBytes / 1024 / 1024} MB of files`);
          const chunks: Buffer[] = [];
          entry.on('data', (c: Buffer) => chunks.push(c));
          entry.on('end', () => {
            if (files.some((f) => f.path === path))
              return parser.abort(new SkillInstallError(`${path} appears twice in the tarball`));
            files.push({ path, bytes: new Uint8Array(Buffer.concat(chunks)) });
          });
        } catch (e) {
          entry.resume();
          parser.abort(e as Error);
        }
      },
    });
    parser.on('abort', (e: Error) => fail(e));
    parser.on('error', (e: Error) => fail(e));
    parser.on('end', () => done());
    parser.end(Buffer.from(bytes));
  });
  return files;
}

/** The files below the folder that holds SKILL.md: the archive's root, or its single top folder. */
function skillRoot(files: SkillFile[]): SkillFile[] {
  if (files.some((f) => f.path === 'SKILL.md')) return files;
  const tops = new Set(files.map((f) => f.path.split('/')[0]));
  const [top] = tops;
  if (tops.size === 1 && top && files.some((f) => f.path === `${top}/SKILL.md`))
    return files.map((f) => ({ ...f, path: f.path.slice(top.length + 1) }));
  throw new SkillInstallError('no SKILL.md at the top (or in the one top folder) of the source');
}

/** Clones `url` (depth 1) into a temporary folder and reads it like a folder (`.git` left out). */
async function readGit(url: string): Promise<SkillFile[]> {
  const dir = mkdtempSync(join(tmpdir(), 'boxbot-skill-git-'));
  try {
    const [repo, ref] = url.replace(/^git\+/, '').split('#') as [string, string | undefined];
    const [{ default: git }, { default: http }] = await Promise.all([
      import('isomorphic-git'),
      import('isomorphic-git/http/node'),
    ]);
    await git.clone({
      fs: await import('node:fs'),
      http,
      dir,
      url: repo,
      depth: 1,
      singleBranch: true,
      ...(ref ? { ref } : {}),
    });
    return readSkillFolder(dir).files;
  } catch (e) {
    if (e instanceof SkillFolderError) throw new SkillInstallError(e.message);
    throw new SkillInstallError(`git clone of ${url} failed: ${(e as Error).message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The files of `source`, whichever kind it is. */
async function readSource(source: string): Promise<SkillFile[]> {
  const kind = sourceKind(source);
  if (kind === 'git') return readGit(source);
  if (kind === 'tarball') {
    if (/^https?:/.test(source))
      throw new SkillInstallError('download the tarball first; a local .tar.gz is installed');
    const size = statSync(source).size;
    if (size > MAX_TARBALL_BYTES) throw new SkillInstallError(`${source} is larger than 20 MB`);
    return readTarball(readFileSync(source));
  }
  try {
    return readSkillFolder(resolve(source)).files;
  } catch (e) {
    if (e instanceof SkillFolderError) throw new SkillInstallError(e.message);
    throw e;
  }
}

/**
 * Installs the skill at `source` into `skillsDir` and records it; `replace` allows an update of an
 * installed skill of the same name. Throws SkillInstallError naming what was wrong.
 */
export async function installSkill(source: string, skillsDir: string, replace = false): Promise<InstalledSkill> {
  const files = skillRoot(await readSource(source));
  const md = files.find((f) => f.path === 'SKILL.md')!;
  let name: string;
  try {
    name = parseSkill(new TextDecoder().decode(md.bytes), 'SKILL.md', 'extension').name;
  } catch (e) {
    throw new SkillInstallError(e instanceof SkillError ? `SKILL.md: ${e.reason}` : String(e));
  }
  const dest = join(skillsDir, name);
  let replaced = false;
  try {
    statSync(dest);
    if (!replace)
      throw new SkillInstallError(`a skill named ${name} is installed already (pass --replace to update it)`);
    replaced = true;
  } catch (e) {
    if (e instanceof SkillInstallError) throw e;
  }
  mkdirSync(skillsDir, { recursive: true });
  // Written under a dot folder first (the loader skips those), then moved into place whole.
  const staging = mkdtempSync(join(skillsDir, `.install-${name}-`));
  try {
    for (const f of files) {
      const path = join(staging, ...f.path.split('/'));
      if (!path.startsWith(`${staging}/`)) throw new SkillInstallError(`${f.path}: outside the skill`);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, f.bytes, { mode: 0o644, flag: 'wx' });
    }
    if (replaced) rmSync(dest, { recursive: true, force: true });
    renameSync(staging, dest);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const record: SkillRecord = { source, sha256: hashSkill(files), approvedAt: new Date().toISOString() };
  writeSkillRecord(skillsDir, name, record);
  return { name, dir: dest, record, replaced, notes: unrunnableScripts(files.map((f) => f.path)) };
}

/** `boxbot skill approve NAME`: records the installed skill's current content as approved. */
export function approveSkill(name: string, skillsDir: string, source?: string): SkillRecord {
  const dir = join(skillsDir, name);
  let content: ReturnType<typeof readSkillFolder>;
  try {
    content = readSkillFolder(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT')
      throw new SkillInstallError(`no skill named ${name} in ${skillsDir}`);
    throw new SkillInstallError(e instanceof SkillFolderError ? e.message : String(e));
  }
  if (!content.files.some((f) => f.path === 'SKILL.md')) throw new SkillInstallError(`${dir} has no SKILL.md`);
  const record: SkillRecord = {
    source: source ?? readSkillRecords(skillsDir)[name]?.source ?? 'approved in place',
    sha256: content.sha256,
    approvedAt: new Date().toISOString(),
  };
  writeSkillRecord(skillsDir, name, record);
  return record;
}
