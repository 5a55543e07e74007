// `boxbot init`: writes a commented starter config (starter-config.ts) that loads as is, and
// never overwrites an existing file.
import { writeFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { packagePath } from '../core/package-paths.ts';
import { starterConfig } from './starter-config.ts';

/** The schema shipped with the package (one level above src/ and dist/). */
const SCHEMA = packagePath('boxbot.schema.json');

/** The shipped schema's path as a config file at `path` names it in "$schema" (relative, with slashes). */
export function schemaPathFor(path: string): string {
  const schema = relative(dirname(path), SCHEMA).split(sep).join('/');
  return schema.startsWith('.') || schema.startsWith('/') ? schema : `./${schema}`;
}

/** Writes the starter config to `file` (default ./boxbot.config.json); resolves with the exit code. */
export async function init(file: string | undefined, cwd = process.cwd()): Promise<number> {
  const path = resolve(cwd, file ?? 'boxbot.config.json');
  const schema = schemaPathFor(path);
  try {
    // 'wx': created here or not at all, so a file that appears meanwhile is not clobbered either.
    writeFileSync(path, starterConfig(schema), { flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST')
      throw new UsageError(`${path} already exists; not overwriting it (edit it, or remove it first)`);
    throw e;
  }
  process.stdout.write(`wrote ${path}\nedit it, then run: boxbot start\n`);
  return 0;
}
