import type { Context } from 'cordis'
import { effectWithTeardown, hostEnv, hostLifetime, trustOf, untracked } from 'dsh-core'
import type {} from 'dsh-skill'
import { Config, placesOf, SkillFsConfig } from './config.ts'
import { FilesystemSkills } from './provider.ts'

export { Config, SkillFsConfig, placesOf, type Places } from './config.ts'
export { FilesystemSkills, type Discovery } from './provider.ts'
export { splitFrontmatter, parseFrontmatter } from './frontmatter.ts'
// Kept for callers of dsh-skill-fs; the reading lives in the seam (dsh-skill) now.
export { skillFields, type SkillFields, type FileOrigin } from 'dsh-skill'
export { skillRoots, findProjectRoot, type SkillRoot } from './roots.ts'
export type { Rejection, ScannedRoot } from './scan.ts'
export type { RootReport, Shadowed } from './status.ts'

/**
 * dsh-skill-fs: registers one filesystem skill provider with `ctx.skills` and, when a readiness
 * service is mounted, the `skill` rows of `dsh status`. Unloading it unregisters the provider and
 * closes every watcher (awaited by the host's stop()).
 */
export const name = 'skill-fs'
/** Several rows may each bring their own roots (give each its own providerName). */
export const reusable = true
export const inject = { skills: { required: true }, fs: { required: true }, readiness: { required: false }, dshHost: { required: false }, trust: { required: false } }

export function apply(ctx: Context, config: SkillFsConfig): void {
  const settings = Config(config)
  const places = placesOf(settings, hostEnv(ctx))
  const logger = ctx.logger('skill-fs')
  let source: FilesystemSkills | undefined
  ctx.skills.registerProvider((control) => {
    const created = new FilesystemSkills(untracked(ctx.fs), settings, places, control, logger, hostLifetime(ctx), trustOf(ctx))
    // Unregistered (or the registration failed): stop watching.
    control.signal.addEventListener('abort', () => void created.close(), { once: true })
    source = created
    return created.provider
  })
  // cordis does not await disposers; this lets the host's stop() wait until every watcher is closed.
  effectWithTeardown(ctx, () => async () => {
    await source?.close()
  })
  ctx.get('readiness')?.register({
    surface: 'skill',
    id: settings.providerName,
    configured: true,
    status: () => ({ state: 'idle', detail: 'looks for skills when first asked' }),
    probeRows: async ({ cwd, signal }) => {
      if (!source) throw new Error('the filesystem skill provider is not registered')
      return source.statusRows(cwd, signal)
    },
  })
}
