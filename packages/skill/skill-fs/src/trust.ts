import { dirname } from 'node:path'
import type { CapabilityRow, FileSystem, TrustDecider, TrustDecision } from 'dsh-core'
import type { SkillRoot } from './roots.ts'

/** A project skill root left out because the directory holding it is not trusted. */
export interface UntrustedRoot {
  readonly root: SkillRoot
  /** Skill folders in it (its directories), counted without reading any file. */
  readonly skills: number
  readonly decision: TrustDecision
}

/**
 * Splits the roots of a read into those it may use and the project roots whose directory is not
 * trusted (`ctx.trust`). Only a project root that exists is asked about: a workspace that brings no
 * skills is never a question. User, custom and bundled roots are the user's own and always used.
 */
export async function trustedRoots(fs: FileSystem, trust: TrustDecider, roots: readonly SkillRoot[], signal?: AbortSignal): Promise<{ roots: SkillRoot[]; untrusted: UntrustedRoot[] }> {
  const kept: SkillRoot[] = []
  const untrusted: UntrustedRoot[] = []
  for (const root of roots) {
    if (root.project === undefined) {
      kept.push(root)
      continue
    }
    const info = await fs.stat(root.path, signal).catch(() => undefined)
    if (info?.type !== 'directory') {
      kept.push(root)
      continue
    }
    // `<dir>/.dsh/skills`: the decision is about `<dir>`, which brings it.
    const decision = await trust.decide(dirname(dirname(root.path)), { brings: `project skills (${root.path})`, signal })
    if (decision.trusted) kept.push(root)
    else untrusted.push({ root, skills: await skillFolders(fs, root.path, signal), decision })
  }
  return { roots: kept, untrusted }
}

async function skillFolders(fs: FileSystem, path: string, signal?: AbortSignal): Promise<number> {
  try {
    return (await fs.listDir(path, signal)).filter((entry) => entry.type === 'directory').length
  } catch {
    return 0
  }
}

/** The `dsh status` row of one untrusted project root. */
export function untrustedRow({ root, skills, decision }: UntrustedRoot): CapabilityRow {
  const what = skills === 1 ? '1 project skill' : `${skills} project skills`
  return { id: root.id, state: 'untrusted', detail: `${root.path}: ${what} not loaded: ${decision.directory} is not trusted; to load them: ${decision.command}` }
}

/** For the summary row: `3 project skills not loaded (untrusted)`, or nothing. */
export function untrustedNote(untrusted: readonly UntrustedRoot[]): string | undefined {
  if (!untrusted.length) return undefined
  const skills = untrusted.reduce((sum, entry) => sum + entry.skills, 0)
  return `${skills === 1 ? '1 project skill' : `${skills} project skills`} not loaded (the workspace is not trusted: ${untrusted[0]!.decision.command})`
}
