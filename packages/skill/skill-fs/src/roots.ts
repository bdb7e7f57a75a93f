import { dirname, join, resolve } from 'node:path'
import type { FileSystem } from 'dsh-core'
import { SkillRank } from 'dsh-skill'
import type { Places, SkillFsConfig } from './config.ts'

export interface SkillRoot {
  /** Absolute path of the directory holding skills. */
  readonly path: string
  /** `project-dsh`, `user-agents`, `custom`, … (the summary's `source`). */
  readonly source: string
  readonly rank: number
  /** The project a project root belongs to; shared roots (user, custom, bundled) have none. */
  readonly project?: string
  /** A child directory that is never a skill (the user dsh root's `.system`). */
  readonly skip?: string
}

/** The nearest ancestor of `cwd` (itself included) holding a `.git` entry, else `cwd` itself. */
export async function findProjectRoot(fs: FileSystem, cwd: string): Promise<string> {
  const start = resolve(cwd)
  for (let dir = start; ; dir = dirname(dir)) {
    try {
      if (await fs.stat(join(dir, '.git'))) return dir
    } catch {
      // An unreadable level is not the project root; keep walking.
    }
    if (dirname(dir) === dir) return start
  }
}

/** Every root for a read, in rank order; a path listed twice keeps its first (better-ranked) role. */
export function skillRoots(config: SkillFsConfig, places: Places, project: string | undefined): SkillRoot[] {
  const roots: SkillRoot[] = []
  if (config.includeDefaultRoots && project !== undefined) {
    roots.push(
      { path: join(project, '.dsh', 'skills'), source: 'project-dsh', rank: SkillRank.projectDsh, project },
      { path: join(project, '.agents', 'skills'), source: 'project-agents', rank: SkillRank.projectAgents, project },
      { path: join(project, '.claude', 'skills'), source: 'project-claude', rank: SkillRank.projectClaude, project },
    )
  }
  for (const path of places.customRoots) roots.push({ path, source: 'custom', rank: SkillRank.custom })
  if (config.includeDefaultRoots) {
    roots.push(
      { path: join(places.dshHome, 'skills'), source: 'user-dsh', rank: SkillRank.userDsh, skip: '.system' },
      { path: join(places.userHome, '.agents', 'skills'), source: 'user-agents', rank: SkillRank.userAgents },
      { path: join(places.userHome, '.claude', 'skills'), source: 'user-claude', rank: SkillRank.userClaude },
    )
  }
  if (places.bundledRoot !== undefined) roots.push({ path: places.bundledRoot, source: 'bundled', rank: SkillRank.bundled })
  const seen = new Set<string>()
  return roots.filter((root) => !seen.has(root.path) && seen.add(root.path))
}
