// `boxbot skill list`: the bundled and extension skills (name, source, one line; an installed
// skill's origin and approved hash), then every skill that was skipped with its reason.
// `--format json` prints `{skills, problems}`.
import { listSkills } from '../agent/skills/index.ts';
import { UsageError } from '../core/errors.ts';

/** Prints the skills; exit 0 (problems are reported, not fatal). */
export async function skillList(flags: { format?: string }, dataDir: string): Promise<number> {
  const format = flags.format ?? 'text';
  if (format !== 'text' && format !== 'json')
    throw new UsageError(`--format must be text or json, not ${JSON.stringify(format)}`);
  const { skills, problems } = await listSkills({ dataDir });
  if (format === 'json') {
    const out = skills.map((s) => ({
      name: s.name,
      description: s.description,
      source: s.source,
      args: s.args,
      tools: s.tools,
      file: s.file,
      ...(s.installed ? { installedFrom: s.installed.source, sha256: s.installed.sha256 } : {}),
      ...(s.resources ? { resources: s.resources } : {}),
    }));
    process.stdout.write(`${JSON.stringify({ skills: out, problems }, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(4, ...skills.map((s) => s.name.length));
  for (const s of skills) {
    process.stdout.write(`${s.name.padEnd(width)}  ${s.source.padEnd(9)}  ${s.description}\n`);
    if (s.installed)
      process.stdout.write(`${''.padEnd(width)}  from ${s.installed.source}  sha256 ${s.installed.sha256}\n`);
  }
  if (!skills.length) process.stdout.write('no skills\n');
  for (const p of problems) process.stderr.write(`skipped ${p.file}: ${p.reason}\n`);
  return 0;
}
