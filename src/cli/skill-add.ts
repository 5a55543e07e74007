// `boxbot skill add <source> [--replace]` and `boxbot skill approve <name>`: install a skill into
// <dataDir>/extensions/skills/ and record the SHA-256 of what was approved; a skill whose files
// change afterwards is refused until approved again.
import { join } from 'node:path';
import { approveSkill, installSkill, SkillInstallError } from '../agent/skills/index.ts';

const skillsDir = (dataDir: string) => join(dataDir, 'extensions', 'skills');

/** Installs; exit 0, or 1 with one line naming what was refused. */
export async function skillAdd(source: string, flags: { replace?: boolean }, dataDir: string): Promise<number> {
  try {
    const r = await installSkill(source, skillsDir(dataDir), flags.replace === true);
    const verb = r.replaced ? 'updated' : 'installed';
    process.stdout.write(`${verb} skill ${r.name} from ${source}\n  ${r.dir}\n  sha256 ${r.record.sha256}\n`);
    for (const n of r.notes) process.stdout.write(`  note: ${n}\n`);
    return 0;
  } catch (e) {
    if (!(e instanceof SkillInstallError) && (e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    process.stderr.write(`error: skill add ${source} refused: ${(e as Error).message}\n`);
    return 1;
  }
}

/** Approves the current content; exit 0, or 1 naming what is wrong. */
export async function skillApprove(name: string, dataDir: string): Promise<number> {
  try {
    const r = approveSkill(name, skillsDir(dataDir));
    process.stdout.write(`approved skill ${name}\n  sha256 ${r.sha256}\n`);
    return 0;
  } catch (e) {
    if (!(e instanceof SkillInstallError)) throw e;
    process.stderr.write(`error: ${e.message}\n`);
    return 1;
  }
}
