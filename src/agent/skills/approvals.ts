// The record of installed skills: where each came from and the SHA-256 of the content a person
// approved (`boxbot skill add`, `boxbot skill approve`). It is one dot file in the skills folder,
// outside every skill's own folder (so no skill's hash covers it, and the folder watcher reloads
// the skills when an approval changes). Tools never reach it: the data dir is never mounted.
// Written atomically (temporary file, then rename).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** One installed skill's record. */
export interface SkillRecord {
  /** Where it was installed from (a folder, a tarball or a git URL). */
  source: string;
  sha256: string;
  approvedAt: string;
}

const recordFile = z.record(
  z.object({ source: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), approvedAt: z.string() }).strict(),
);

/** The record file of an extension skills folder. */
export function skillRecordPath(skillsDir: string): string {
  return join(skillsDir, '.approved.json');
}

/** Reads the records; a missing file is none, a broken one throws naming it. */
export function readSkillRecords(skillsDir: string): Record<string, SkillRecord> {
  const path = skillRecordPath(skillsDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw e;
  }
  const r = recordFile.safeParse(JSON.parse(text));
  if (!r.success) throw new Error(`${path} is not a valid skill record: ${r.error.issues[0]?.message}`);
  return r.data;
}

/** Sets (or with `undefined` removes) one skill's record. */
export function writeSkillRecord(skillsDir: string, name: string, record: SkillRecord | undefined): void {
  const all = readSkillRecords(skillsDir);
  if (record) all[name] = record;
  else delete all[name];
  const path = skillRecordPath(skillsDir);
  mkdirSync(skillsDir, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}
