// One skill: a SKILL.md with YAML front matter (name, description, when_to_use, tools, args)
// and a Markdown body. Parsing is strict and every refusal names the field and what was wrong.
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { BoxbotError, errorMessage } from '../../core/errors.ts';
import type { SkillResources } from './folder.ts';

/** A declared argument of a skill. */
export interface SkillArg {
  name: string;
  description: string;
  required: boolean;
}

/** Where a skill was found; extensions override bundled skills of the same name. */
export type SkillSource = 'bundled' | 'extension';

/** A loaded skill. */
export interface Skill {
  name: string;
  description: string;
  whenToUse?: string;
  /** Tools the skill expects to use (informational; permissions still decide). */
  tools: string[];
  args: SkillArg[];
  body: string;
  file: string;
  source: SkillSource;
  /** The skill's folder (SKILL.md's directory). */
  dir?: string;
  /** Its scripts, references and assets (paths relative to `dir`); absent for a skill read from text alone. */
  resources?: SkillResources;
  /** For an installed skill: where it came from and the approved content hash (checked again before a script runs). */
  installed?: { source: string; sha256: string };
}

/** A SKILL.md that could not be used, and why. */
export class SkillError extends BoxbotError<'skill-invalid'> {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super('skill-invalid', `${file}: ${reason}`);
  }
}

/** Skill names: lower-case words joined by hyphens (also the directory name). */
export const SKILL_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

const frontMatter = z
  .object({
    name: z.string().regex(SKILL_NAME, 'expected lower-case letters, digits and hyphens'),
    description: z.string().trim().min(1, 'expected a one-line description'),
    when_to_use: z.string().optional(),
    tools: z
      .union([
        z.array(z.string()),
        z.string().transform((s) =>
          s
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean),
        ),
      ])
      .optional(),
    args: z
      .array(
        z
          .object({
            name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a word of letters, digits and _'),
            description: z.string().default(''),
            required: z.boolean().default(false),
          })
          .strict(),
      )
      .optional(),
  })
  .passthrough();

/** Parses a SKILL.md; throws SkillError naming the file and reason. `dirName` must match `name`. */
export function parseSkill(text: string, file: string, source: SkillSource, dirName?: string): Skill {
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!m)
    throw new SkillError(
      file,
      'no YAML front matter (the file must start with a line `---`, the fields, and a closing `---`)',
    );
  let data: unknown;
  try {
    data = parseYaml(m[1]!);
  } catch (e) {
    throw new SkillError(file, `front matter is not valid YAML: ${errorMessage(e).split('\n')[0]}`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new SkillError(file, 'front matter must be a mapping of fields (name, description, ...)');
  const r = frontMatter.safeParse(data);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new SkillError(file, `front matter field ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const fm = r.data;
  if (dirName !== undefined && fm.name !== dirName)
    throw new SkillError(
      file,
      `name ${JSON.stringify(fm.name)} does not match its directory ${JSON.stringify(dirName)}`,
    );
  const names = new Set<string>();
  for (const a of fm.args ?? []) {
    if (names.has(a.name)) throw new SkillError(file, `argument ${a.name} is declared twice`);
    names.add(a.name);
  }
  const body = m[2]!.trim();
  if (!body) throw new SkillError(file, 'the body after the front matter is empty');
  return {
    name: fm.name,
    description: fm.description.trim(),
    ...(fm.when_to_use?.trim() ? { whenToUse: fm.when_to_use.trim() } : {}),
    tools: fm.tools ?? [],
    args: (fm.args ?? []).map((a) => ({ name: a.name, description: a.description, required: a.required })),
    body,
    file,
    source,
  };
}
