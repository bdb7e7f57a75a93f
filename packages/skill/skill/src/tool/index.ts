import type { Context } from 'cordis'
import { untracked } from 'dsh-core'
import type {} from '../service.ts'
import { catalogLink } from './catalog.ts'
import { Config, ToolSkillConfig } from './config.ts'
import { invocationLink } from './invocation.ts'
import { RecentSkills } from './priority.ts'
import { skillTool } from './tool.ts'

/**
 * dsh-skill/tool: the model-facing consumer of `ctx.skills`. It registers the `skill` tool and two
 * pre-step links: `/name` invocation (outer, so its injections come last) and the catalog. It never
 * imports a provider; with none mounted, the catalog stays empty and the tool answers SKILL_UNKNOWN.
 */
export const name = 'tool-skill'
export const inject = ['skills', 'tools', 'sessions']
export { Config }
export type { ToolSkillConfig } from './config.ts'
export { SkillToolValue, SKILL_TOOL_DESCRIPTION } from './tool.ts'
export { CATALOG_KIND, catalogDigest, readableCatalog, type CatalogContent } from './catalog.ts'
export { INVOCATION_KIND, gestureNames } from './invocation.ts'
export { fitCatalog, type FittedCatalog, type CatalogBudget, type Offered, type NameGroup, type CatalogEntry } from './budget.ts'
export { byPriority, originOf, RecentSkills, type Origin } from './priority.ts'
export { listSkills, type SkillListing } from './listing.ts'

export function apply(ctx: Context, config: ToolSkillConfig): void {
  const settings = Config(config)
  // Reads register nothing, so they may skip cordis's per-call caller tracking.
  const skills = untracked(ctx.skills)
  const tools = untracked(ctx.tools)
  // What each session loaded: the catalog gives those skills room first when it is over budget.
  const recent = new RecentSkills()
  const definition = skillTool(skills, recent, settings)
  ctx.tools.register(definition)
  // Registered first, so it runs outside the catalog link: injections land after the catalog.
  ctx.sessions.use(invocationLink(skills, recent))
  ctx.sessions.use(catalogLink(skills, () => tools.get('skill') === definition, recent, settings))
}
