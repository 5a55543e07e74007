// The built-in `skill` tool: the model names a skill (listed in the system prompt) and gets its
// instructions back with the arguments filled in, and the list of the skill's files; with `file`
// it reads one of them (a reference, an asset): skills load progressively, only what is needed.
import type { BuiltinTool } from '../tools/builtin.ts';
import { expandSkill } from './expand.ts';
import { readSkillFolder } from './folder.ts';
import type { SkillCatalog } from './load.ts';
import type { Skill } from './skill.ts';
import { PYTHON_REFUSED, skillTaint } from './skill-run.ts';

/** Most characters of one file returned. */
const MAX_FILE_CHARS = 60_000;

/** One file of a skill as text, or why not; an installed skill's files must still match the approved hash. */
function readSkillText(skill: Skill, file: string): { ok: true; text: string } | { ok: false; error: string } {
  if (!skill.dir) return { ok: false, error: `skill ${skill.name} has no files besides its instructions` };
  let content: ReturnType<typeof readSkillFolder>;
  try {
    content = readSkillFolder(skill.dir);
  } catch (e) {
    return { ok: false, error: `skill ${skill.name} cannot be read: ${(e as Error).message}` };
  }
  if (skill.installed && content.sha256 !== skill.installed.sha256)
    return { ok: false, error: `skill ${skill.name} changed since it was approved; ask an admin to review it` };
  const f = content.files.find((x) => x.path === file);
  if (!f) {
    const names = content.files.map((x) => x.path).filter((p) => p !== 'SKILL.md');
    return {
      ok: false,
      error: `skill ${skill.name} has no file ${JSON.stringify(file)}; its files: ${names.join(', ')}`,
    };
  }
  if (f.bytes.includes(0)) return { ok: false, error: `${file} is a binary file (${f.bytes.length} bytes)` };
  const text = new TextDecoder().decode(f.bytes);
  return {
    ok: true,
    text:
      text.length > MAX_FILE_CHARS ? `${text.slice(0, MAX_FILE_CHARS)}\n[cut at ${MAX_FILE_CHARS} characters]` : text,
  };
}

/** What the model is told about a skill's files when it loads the skill. */
function filesNote(skill: Skill): string {
  const r = skill.resources;
  if (!r || !(r.scripts.length + r.references.length + r.assets.length)) return '';
  const lines = [
    ...(r.references.length ? [`References (read with skill, file=...): ${r.references.join(', ')}`] : []),
    ...(r.assets.length ? [`Assets (read with skill, file=...): ${r.assets.join(', ')}`] : []),
    ...(r.scripts.length ? [`Scripts (run with skill_run; the folder is /skill): ${r.scripts.join(', ')}`] : []),
    ...(r.scripts.some((p) => p.endsWith('.py')) ? [PYTHON_REFUSED] : []),
  ];
  return `\n\n## Files of this skill\n${lines.join('\n')}`;
}

/** Creates the `skill` tool over `catalog`; `available` names the tools this session may call. */
export function createSkillTool(
  catalog: Pick<SkillCatalog, 'list' | 'get'>,
  available: () => string[] = () => [],
): BuiltinTool {
  const names = catalog.list().map((s) => s.name);
  return {
    name: 'skill',
    description:
      'Load a skill (a set of instructions for a kind of task) by name; the skills are listed in the system prompt. ' +
      'Returns the instructions to follow, with the arguments filled in.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The skill to load', ...(names.length ? { enum: names } : {}) },
        arguments: { type: 'string', description: 'Free-text arguments for the skill' },
        args: { type: 'object', description: 'Named arguments the skill declares, as {"name": "value"}' },
        file: { type: 'string', description: "One of the skill's files to read (e.g. references/api.md)" },
      },
      required: ['name'],
      additionalProperties: false,
    },
    permissionLevel: 'None',
    async run(input) {
      const name = String(input.name ?? '');
      const skill = catalog.get(name);
      if (!skill)
        return {
          content: `there is no skill named ${JSON.stringify(name)}; available: ${
            catalog
              .list()
              .map((s) => s.name)
              .join(', ') || '(none)'
          }`,
          isError: true,
        };
      const taint = skillTaint(skill);
      if (typeof input.file === 'string') {
        const r = readSkillText(skill, input.file);
        if (!r.ok) return { content: r.error, isError: true };
        return {
          content: `# ${skill.name}/${input.file}\n\n${r.text}`,
          isError: false,
          ...(taint ? { untrusted: `${input.file} of ${taint}` } : {}),
        };
      }
      const args =
        input.args && typeof input.args === 'object' && !Array.isArray(input.args)
          ? (input.args as Record<string, unknown>)
          : undefined;
      const r = expandSkill(skill, {
        ...(typeof input.arguments === 'string' ? { arguments: input.arguments } : {}),
        ...(args ? { args } : {}),
      });
      if (!r.ok) return { content: r.error, isError: true };
      const have = new Set(available());
      const missing = skill.tools.filter((t) => !have.has(t));
      const unavailable = missing.length
        ? `; not available in this conversation: ${missing.join(', ')}, so do without them`
        : '';
      const note = skill.tools.length ? `\n\n(This skill uses the tools ${skill.tools.join(', ')}${unavailable}.)` : '';
      return {
        content: `# Skill: ${skill.name}\n\n${r.text}${note}${filesNote(skill)}`,
        isError: false,
        ...(taint ? { untrusted: `the instructions of ${taint}` } : {}),
      };
    },
  };
}
