// Model input → the tool's command line (README, "Tools"): `file_path` → `--file-path V`,
// `true` → a bare flag, `false`/`null` omitted, arrays repeat the flag, positional arguments
// by name and in order after `--`, a subcommand first.
import type { HelpParam } from './help-parse.ts';

const asArg = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** Builds argv for a checked input. */
export function inputToArgv(input: Record<string, unknown>, params: HelpParam[], hasCommands: boolean): string[] {
  const argv: string[] = [];
  const tail: string[] = [];
  for (const p of params) {
    const v = input[p.key];
    if (v === undefined || v === null) continue;
    const values = Array.isArray(v) ? v : [v];
    if (p.kind === 'positional') {
      tail.push(...values.map(asArg));
      continue;
    }
    for (const item of values) {
      if (p.valueName === undefined) {
        if (item === true) argv.push(p.flag!);
      } else {
        argv.push(p.flag!, asArg(item));
      }
    }
  }
  if (hasCommands && typeof input.command === 'string') {
    const args = Array.isArray(input.args) ? input.args.map(asArg) : [];
    return [...argv, input.command, ...args, ...(tail.length ? ['--', ...tail] : [])];
  }
  return tail.length ? [...argv, '--', ...tail] : argv;
}
