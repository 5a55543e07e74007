// The built-in `skill` tool: the model names a skill (listed in the system prompt) and gets its
// instructions back with the arguments filled in.
import type { BuiltinTool } from '../tools/builtin.ts';
import { expandSkill } from './expand.ts';
import type { SkillCatalog } from './load.ts';

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
      return { content: `# Skill: ${skill.name}\n\n${r.text}${note}`, isError: false };
    },
  };
}
