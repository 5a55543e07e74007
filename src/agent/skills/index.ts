// Public names of skills: SKILL.md parsing, loading, expansion and the `skill` tool.
export { parseSkill, SkillError, SKILL_NAME, type Skill, type SkillArg, type SkillSource } from './skill.ts';
export { expandSkill, type SkillInput } from './expand.ts';
export {
  BUNDLED_SKILLS_DIR,
  createSkillCatalog,
  listSkills,
  loadSkills,
  skillDirs,
  staticSkillCatalog,
  type SkillCatalog,
  type SkillDir,
  type SkillList,
  type SkillProblem,
} from './load.ts';
export { createSkillTool } from './skill-tool.ts';
