// Public names of skills: SKILL.md parsing, folders and their approval, installing, loading, expansion,
// and the `skill` and `skill_run` tools.

export { readSkillRecords, type SkillRecord, skillRecordPath, writeSkillRecord } from './approvals.ts';
export { expandSkill, type SkillInput } from './expand.ts';
export {
  hashSkill,
  readSkillFolder,
  resourcesOf,
  SKILL_LIMITS,
  type SkillContent,
  type SkillFile,
  SkillFolderError,
  type SkillResources,
} from './folder.ts';
export {
  approveSkill,
  type InstalledSkill,
  installSkill,
  readTarball,
  SkillInstallError,
  sourceKind,
} from './install.ts';
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
export { createSkillRunTool, PYTHON_REFUSED, type SkillRunOptions, unrunnableScripts } from './skill-run.ts';
export { createSkillTool } from './skill-tool.ts';
