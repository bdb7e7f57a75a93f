import { FsError, type FileSystem } from 'dsh-core'
import type { SkillCandidate, SkillDefinition } from 'dsh-skill'
import { frontmatterParser, splitFrontmatter } from './frontmatter.ts'
import { NOT_TEXT_REASON } from './head.ts'
import { outcomeOf } from './outcomes.ts'
import { readProblem } from './problems.ts'
import { absent, type ScanSettings, type SkillLocator } from './scan.ts'

/**
 * Loads a listed skill again, whole: frontmatter and body are read fresh on every load, so an edit
 * shows at once, and checked by the same rules as at discovery (a frontmatter within
 * `maxFrontmatterBytes`, UTF-8 text). Undefined when the file is gone or no longer a valid skill; a
 * body that is not text is `FS_NOT_TEXT` with the reason discovery gives.
 */
export async function loadSkill(fs: FileSystem, candidate: SkillCandidate, settings: ScanSettings, signal: AbortSignal | undefined): Promise<SkillDefinition | undefined> {
  const locator = candidate.locator as SkillLocator
  let text: string
  try {
    text = await readWhole(fs, locator.path, settings.maxSkillFileBytes, signal)
  } catch (error) {
    if (absent(error)) return undefined
    if (isNotText(error)) throw new FsError(`skill file ${locator.path}: ${NOT_TEXT_REASON}`, 'FS_NOT_TEXT', { cause: error })
    // Unusable since it was listed (now a FIFO, a link loop, unreadable, too large): discovery's reason.
    const problem = error instanceof FsError && error.code === 'FS_TOO_LARGE' ? { reason: error.message, lasting: true } : readProblem(error)
    if (problem.lasting) throw new UnusableSkillFile(`skill file ${locator.path}: ${problem.reason}`, error instanceof FsError ? error.code : 'FS_IO_ERROR', { cause: error })
    throw error
  }
  const split = splitFrontmatter(text, true, settings.maxFrontmatterBytes)
  if (!split?.ok) return undefined
  // The name to check against is the one listed: a load never applies the directory-name warning.
  const outcome = outcomeOf(split.yaml, { expectedName: candidate.name, kind: 'directory' }, await frontmatterParser())
  if (outcome.kind !== 'skill') return undefined
  return {
    ...outcome.fields,
    source: candidate.source,
    provider: candidate.provider,
    resourceBase: { kind: 'directory', path: locator.directory },
    path: locator.path,
    content: split.body.replace(/\r\n/g, '\n').trim(),
  }
}

/**
 * A listed skill's file that cannot be used any more, said with the reason discovery gives (`a
 * symbolic link loop`, `not a regular file`, `permission denied`, over `maxSkillFileBytes`) and the
 * `ctx.fs` code; the provider has discovery look again, which then rejects the file itself.
 */
export class UnusableSkillFile extends FsError {}

/** Whether a load failed because the file is not text (then discovery is told, so it rejects the file too). */
export function isNotText(error: unknown): boolean {
  return error instanceof FsError && error.code === 'FS_NOT_TEXT'
}

/**
 * A whole file through `ctx.fs`. Its fatal UTF-8 decoding is byte-exact except that it drops a
 * leading byte-order mark; that is put back, so a load applies the same frontmatter rule as discovery.
 */
async function readWhole(fs: FileSystem, path: string, maxBytes: number, signal: AbortSignal | undefined): Promise<string> {
  const parts: string[] = []
  let bytes = 0
  for await (const chunk of fs.streamText(path, signal)) {
    bytes += chunk.bytes
    if (bytes > maxBytes) throw new FsError(`the file has over ${maxBytes} bytes, the maxSkillFileBytes limit`, 'FS_TOO_LARGE')
    parts.push(chunk.text)
  }
  const text = parts.join('')
  return Buffer.byteLength(text) < bytes ? `\ufeff${text}` : text
}
