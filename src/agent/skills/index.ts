// Public names of skills: SKILL.md parsing, loading, expansion and the `skill` tool.

export { expandSkill, type SkillInput } from './expand.ts';
export {
  BUNDLED_SKILLS_DIR,
  createSkillCatalog,
  listSkills,
  loadSkills,
  type SkillCatalog,
  type SkillDir,
  type SkillList,
  type SkillProblem,
  skillDirs,
  staticSkillCatalog,
} from './load.ts';
export { parseSkill, SKILL_NAME, type Skill, type SkillArg, SkillError, type SkillSource } from './skill.ts';
export { createSkillTool } from './skill-tool.ts';
