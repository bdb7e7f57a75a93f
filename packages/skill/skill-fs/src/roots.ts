import { dirname, join, relative, resolve, sep } from 'node:path'
import type { FileSystem } from 'dsh-core'
import { SkillRank } from 'dsh-skill'
import type { Places, SkillFsConfig } from './config.ts'

export interface SkillRoot {
  /** Absolute path of the directory holding skills. */
  readonly path: string
  /** `project-dsh`, `user-agents`, `custom`, … (the summary's `source`). */
  readonly source: string
  /** The root's `dsh status` row: its source, with the directory for a package below the project root (`project-dsh:packages/app`) and the position for a custom root (`custom-2`). */
  readonly id: string
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

/** The three kinds of skill directory, in the order they rank within one directory. */
const KINDS = [
  { dir: '.dsh', source: 'project-dsh', rank: SkillRank.projectDsh },
  { dir: '.agents', source: 'project-agents', rank: SkillRank.projectAgents },
  { dir: '.claude', source: 'project-claude', rank: SkillRank.projectClaude },
] as const

/**
 * The project roots of a read, nearest first: the skill directories of the workspace, of each
 * directory above it, and of the project root. The project root keeps the table's ranks (100, 200,
 * 220); a directory `k` levels below it ranks its three kinds `100 − 3k`, `101 − 3k` and `102 − 3k`,
 * so a nearer directory wins a name whatever kind of skill directory holds it.
 */
function projectRoots(project: string, cwd: string): SkillRoot[] {
  const below = relative(project, resolve(cwd))
  const inside = below && !below.startsWith('..') ? below : ''
  const shown = sep === '/' ? inside : inside.split(sep).join('/')
  // Each level's path and id are prefixes of the deepest ones: cut, never re-joined per level, so a
  // workspace 1,000 directories down costs no quadratic string building (issue 33 item 4).
  const ends = [0]
  for (let at = inside.indexOf(sep); at !== -1; at = inside.indexOf(sep, at + 1)) ends.push(at)
  if (inside) ends.push(inside.length)
  const prefix = project.endsWith(sep) ? project : `${project}${sep}`
  const roots: SkillRoot[] = []
  for (let depth = ends.length - 1; depth >= 0; depth--) {
    const where = shown.slice(0, ends[depth])
    const dir = depth ? `${prefix}${inside.slice(0, ends[depth])}${sep}` : prefix
    KINDS.forEach((kind, index) => {
      roots.push({
        path: `${dir}${kind.dir}${sep}skills`,
        source: kind.source,
        id: where ? `${kind.source}:${where}` : kind.source,
        rank: depth ? SkillRank.projectDsh - 3 * depth + index : kind.rank,
        project,
      })
    })
  }
  return roots
}

/** Every root for a read, in rank order; a path listed twice keeps its first (better-ranked) role. */
export function skillRoots(config: SkillFsConfig, places: Places, project: string | undefined, cwd: string | undefined): SkillRoot[] {
  const roots: SkillRoot[] = []
  if (config.includeDefaultRoots && project !== undefined) roots.push(...projectRoots(project, cwd ?? project))
  places.customRoots.forEach((path, index) => roots.push({ path, source: 'custom', id: `custom-${index + 1}`, rank: SkillRank.custom }))
  // Without a home the user roots have no place (Places.homeless says why); `$DSH_HOME` may still give the dsh one.
  if (config.includeDefaultRoots && places.dshHome !== undefined) {
    roots.push({ path: join(places.dshHome, 'skills'), source: 'user-dsh', id: 'user-dsh', rank: SkillRank.userDsh, skip: '.system' })
  }
  if (config.includeDefaultRoots && places.userHome !== undefined) {
    roots.push(
      { path: join(places.userHome, '.agents', 'skills'), source: 'user-agents', id: 'user-agents', rank: SkillRank.userAgents },
      { path: join(places.userHome, '.claude', 'skills'), source: 'user-claude', id: 'user-claude', rank: SkillRank.userClaude },
    )
  }
  if (places.bundledRoot !== undefined) roots.push({ path: places.bundledRoot, source: 'bundled', id: 'bundled', rank: SkillRank.bundled })
  const seen = new Set<string>()
  return roots.filter((root) => !seen.has(root.path) && seen.add(root.path))
}
