import type { Context } from 'cordis'
import { hostLifetime } from 'dsh-core'
import type {} from 'dsh-skill'
import type { McpConfig } from '../config.ts'
import type { Supervisor } from '../supervisor.ts'
import { skillFileTool } from './file-tool.ts'
import { ServerSkills } from './server-skills.ts'

/**
 * The server's skills as a provider of `ctx.skills` (registered on the row's scope, so unloading
 * the row removes them), when the row has `skills` on and a skill registry runs; undefined otherwise.
 * `supervisor` is read lazily: the supervisor is built after this (its `onConnected` calls in).
 */
export function mountServerSkills(ctx: Context, config: McpConfig, supervisor: () => Supervisor): ServerSkills | undefined {
  const registry = ctx.get('skills')
  if (!config.skills || !registry) return undefined
  const tools = ctx.tools
  const skills = new ServerSkills(config, supervisor, ctx.logger('mcp'), (definition) => void tools.register(definition), (own) => skillFileTool(config, own), hostLifetime(ctx))
  registry.registerProvider((control) => skills.provider(control))
  return skills
}
