// A skill's body with its arguments filled in: `$ARGUMENTS` is the whole argument string and
// `{{name}}` a named argument; required arguments are checked first. Substitution is one pass,
// so a value that itself contains a placeholder is left as written.
import type { Skill } from './skill.ts';

/** Arguments as the model passes them. */
export interface SkillInput {
  /** Free text, substituted for `$ARGUMENTS`. */
  arguments?: string;
  /** Named values, substituted for `{{name}}`. */
  args?: Record<string, unknown>;
}

const asText = (v: unknown): string =>
  typeof v === 'string'
    ? v
    : v === undefined || v === null
      ? ''
      : typeof v === 'object'
        ? JSON.stringify(v)
        : String(v);

/** How a missing argument is named to the model: its name, and its description if any. */
const describeArg = (a: Skill['args'][number]) => `${a.name}${a.description ? ` (${a.description})` : ''}`;

/** Expands the body, or says which required arguments are missing. */
export function expandSkill(
  skill: Skill,
  input: SkillInput,
): { ok: true; text: string } | { ok: false; error: string } {
  const named: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.args ?? {})) named[k] = asText(v);
  const free = input.arguments?.trim() ?? '';
  // One declared argument and only free text given: the text is that argument.
  const only = skill.args.length === 1 ? skill.args[0]! : undefined;
  if (only && free && named[only.name] === undefined) named[only.name] = free;
  const missing = skill.args.filter((a) => a.required && !named[a.name]?.trim());
  if (missing.length) {
    return {
      ok: false,
      error: `skill ${skill.name} needs ${missing.map(describeArg).join(', ')}; pass them in args`,
    };
  }
  const declared = new Set(skill.args.map((a) => a.name));
  const whole =
    free ||
    skill.args
      .map((a) => named[a.name])
      .filter(Boolean)
      .join(' ');
  const text = skill.body.replace(
    /\$ARGUMENTS\b|\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g,
    (match, name: string | undefined) => {
      if (name === undefined) return whole;
      if (named[name] !== undefined) return named[name];
      return declared.has(name) ? '' : match;
    },
  );
  return { ok: true, text };
}
