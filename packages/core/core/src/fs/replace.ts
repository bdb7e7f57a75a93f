import { randomBytes } from 'node:crypto'
import { chmod, lstat, rename, unlink, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { quote } from '../errors.ts'
import { FsError, fsErrorFrom, throwIfFsAborted } from './errors.ts'

/** One file to rewrite: what it must still hold, and what it gets. */
export interface TextReplacement {
  /** Relative to the workspace, or absolute; must resolve inside it. */
  readonly filePath: string
  /** The whole text the file must hold right now; otherwise nothing is written (`FS_CONFLICT`). */
  readonly expected: string
  readonly text: string
}

/** What the replacement needs of `ctx.fs` (the proofs and reads it already has). */
export interface ReplaceHost {
  contained(workspace: { readonly path: string; readonly url: string }, filePath: string, signal?: AbortSignal): Promise<string>
  readContainedText(workspace: { readonly path: string; readonly url: string }, filePath: string, options: { maxBytes: number; signal?: AbortSignal | undefined }): Promise<{ path: string; text: string }>
  resolve(path: string, options?: { signal?: AbortSignal | undefined }): Promise<string>
}

interface Staged {
  readonly path: string
  readonly original: string
  readonly text: string
  readonly mode: number
  /** What the file was when its text was compared: it must still be that file, unchanged, at the rename. */
  readonly seen: { readonly dev: number; readonly ino: number; readonly size: number; readonly mtimeMs: number }
  temp?: string | undefined
}

/**
 * Rewrites several workspace files all or nothing. Every file is proven inside the workspace
 * (symlinks resolved), must be a regular file holding exactly `expected`, and is written to a
 * sibling temporary file first; only when every one is staged and still unchanged are they renamed
 * over their targets (each rename atomic). A rename that fails puts back the files already
 * replaced. Nothing is written when any check fails: `FS_OUTSIDE_WORKSPACE`, `FS_CONFLICT` (a file
 * changed, or one file named twice), or the read's own codes. Writes always go through the
 * threadpool: they are rare, and a half-done rewrite must not depend on the event loop's mode.
 */
export async function replaceContainedTexts(
  host: ReplaceHost,
  workspace: { readonly path: string; readonly url: string },
  replacements: readonly TextReplacement[],
  options: { readonly maxBytes: number; readonly signal?: AbortSignal | undefined },
): Promise<string[]> {
  const { signal } = options
  const staged: Staged[] = []
  const byPath = new Set<string>()
  for (const replacement of replacements) {
    const current = await host.readContainedText(workspace, replacement.filePath, { maxBytes: options.maxBytes, signal })
    if (byPath.has(current.path)) throw new FsError(`${quote(replacement.filePath)} is named twice (as ${current.path})`, 'FS_CONFLICT')
    byPath.add(current.path)
    if (current.text !== replacement.expected) throw new FsError(`${quote(replacement.filePath)} changed since its new text was computed; nothing was written`, 'FS_CONFLICT')
    const info = await statOf(current.path)
    staged.push({ path: current.path, original: current.text, text: replacement.text, mode: info.mode & 0o7777, seen: info })
  }
  try {
    for (const file of staged) {
      throwIfFsAborted(signal, 'replacing files')
      file.temp = await writeTemp(file.path, file.text, file.mode)
    }
    throwIfFsAborted(signal, 'replacing files')
    for (const file of staged) await assertUnchanged(host, file)
  } catch (error) {
    await removeTemps(staged)
    throw error
  }
  const replaced: Staged[] = []
  try {
    for (const file of staged) {
      await rename(file.temp!, file.path).catch((error) => {
        throw fsErrorFrom(error, quote(file.path))
      })
      file.temp = undefined
      replaced.push(file)
    }
  } catch (error) {
    await removeTemps(staged)
    const lost = await restore(replaced)
    const kept = lost.length ? `; could not put back ${lost.join(', ')}` : '; the files already replaced were put back'
    throw new FsError(`replacing ${staged.length} files failed: ${(error as Error).message}${kept}`, 'FS_IO_ERROR', { cause: error })
  }
  return staged.map((file) => file.path)
}

async function statOf(path: string) {
  try {
    return await lstat(path)
  } catch (error) {
    throw fsErrorFrom(error, quote(path))
  }
}

/** A sibling of `path` (same directory, so the rename stays on one filesystem), created exclusively. */
async function writeTemp(path: string, text: string, mode: number): Promise<string> {
  const temp = join(dirname(path), `.${basename(path)}.dsh-${process.pid}-${randomBytes(4).toString('hex')}.tmp`)
  try {
    await writeFile(temp, text, { flag: 'wx', mode })
    // The umask may have narrowed the mode the file was created with.
    await chmod(temp, mode)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw fsErrorFrom(error, quote(path))
  }
  return temp
}

/** Still the canonical path proven, the same file, not touched since its text was compared. */
async function assertUnchanged(host: ReplaceHost, file: Staged): Promise<void> {
  if ((await host.resolve(file.path)) !== file.path) throw new FsError(`${quote(file.path)} was moved or replaced by a link while it was being rewritten; nothing was written`, 'FS_CONFLICT')
  const now = await statOf(file.path)
  const { seen } = file
  if (now.dev !== seen.dev || now.ino !== seen.ino || now.size !== seen.size || now.mtimeMs !== seen.mtimeMs) {
    throw new FsError(`${quote(file.path)} changed while it was being rewritten; nothing was written`, 'FS_CONFLICT')
  }
}

async function removeTemps(staged: readonly Staged[]): Promise<void> {
  await Promise.all(staged.map(async (file) => (file.temp ? unlink(file.temp).catch(() => {}) : undefined)))
}

/**
 * Puts the original text back into each replaced file (staged and renamed, or, when renaming fails
 * again, written in place); returns the paths that could not be.
 */
async function restore(replaced: readonly Staged[]): Promise<string[]> {
  const lost: string[] = []
  for (const file of replaced) {
    try {
      const temp = await writeTemp(file.path, file.original, file.mode)
      await rename(temp, file.path).catch(async () => {
        await unlink(temp).catch(() => {})
        await writeFile(file.path, file.original)
      })
    } catch {
      lost.push(file.path)
    }
  }
  return lost
}
