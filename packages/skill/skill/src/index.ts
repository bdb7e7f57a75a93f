import { SkillRegistry } from './service.ts'

export default SkillRegistry
export { SkillRegistry, SkillsConfig, type RegisterOptions } from './service.ts'
export { SkillError, SkillErrorCode } from './errors.ts'
export { isSkillName, skillNameProblem, normalisedSkillName, compareNames, MAX_SKILL_NAME_LENGTH, MAX_DESCRIPTION_LENGTH } from './name.ts'
export { isModelInvocable, isUserInvocable } from './validate.ts'
export { renderSkillContent, escapeText, escapeAttribute, catalogDescription, type LoadedSkill } from './render.ts'
export { cutText } from './text.ts'
export { capSkillContent, type CappedSource } from './cap.ts'
// What a SKILL.md frontmatter means (S1), for every provider that reads one: files (dsh-skill-fs) and MCP servers' skill entries (dsh-mcp).
export { skillFields, type SkillFields, type FileOrigin, type CheckedFields } from './fields.ts'
export * from './types.ts'
