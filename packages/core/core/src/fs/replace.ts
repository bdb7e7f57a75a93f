import { chmod, link, lstat, open, rename, unlink, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { assertNever, quote } from '../errors.ts'
import { FsError, fsErrorFrom, throwIfFsAborted } from './errors.ts'

/** One file to rewrite, create or delete: what it must hold now, and what it gets. */
export interface TextReplacement {
  /** Relative to the workspace, or absolute; must resolve inside it. */
  readonly filePath: string
  /**
   * The whole text the file must hold right now; otherwise nothing is written (`FS_CONFLICT`).
   * `null`: the file must not exist (it is created, in a directory that exists).
   */
  readonly expected: string | null
  /** Its new text; `null` deletes it. */
  readonly text: string | null
}

/** What the replacement needs of `ctx.fs` (the proofs and reads it already has). */
export interface ReplaceHost {
  contained(workspace: { readonly path: string; readonly url: string }, filePath: string, signal?: AbortSignal): Promise<string>
  readContainedText(workspace: { readonly path: string; readonly url: string }, filePath: string, options: { maxBytes: number; signal?: AbortSignal | undefined }): Promise<{ path: string; text: string }>
  resolve(path: string, options?: { signal?: AbortSignal | undefined }): Promise<string>
}

interface Staged {
  readonly path: string
  /** `write` replaces a file, `create` makes a new one, `delete` removes one. */
  readonly kind: 'write' | 'create' | 'delete'
  readonly original: string
  readonly text: string
  readonly mode: number
  /** What the file was when its text was compared: it must still be that file, unchanged, at the rename (not for `create`). */
  readonly seen?: { readonly dev: number; readonly ino: number; readonly size: number; readonly mtimeMs: number }
  /** The staged new text (`write`, `create`), or where a deleted file was moved aside until the end. */
  temp?: string | undefined
}

/** Mode of a created file (before the umask narrows nothing: it is set explicitly). */
const NEW_FILE_MODE = 0o644

/**
 * Rewrites, creates and deletes several workspace files all or nothing. Every file is proven
 * inside the workspace (symlinks resolved), must be a regular file holding exactly `expected` (a
 * new one: nothing there yet, in an existing directory), and its new text is written to a sibling
 * temporary file first; only when every one is staged and still unchanged are they renamed
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
    const file = await stage(host, workspace, replacement, options)
    if (byPath.has(file.path)) throw new FsError(`${quote(replacement.filePath)} is named twice (as ${file.path})`, 'FS_CONFLICT')
    byPath.add(file.path)
    staged.push(file)
  }
  try {
    for (const file of staged) {
      throwIfFsAborted(signal, 'replacing files')
      if (file.kind !== 'delete') file.temp = await writeTemp(file.path, file.text, file.mode)
    }
    throwIfFsAborted(signal, 'replacing files')
    for (const file of staged) await assertUnchanged(host, file)
  } catch (error) {
    await removeTemps(staged)
    throw error
  }
  // Rewrites, then new files, then deletions: a deleted file is moved aside and removed only once every step succeeded.
  const order = [...staged.filter((file) => file.kind === 'write'), ...staged.filter((file) => file.kind === 'create'), ...staged.filter((file) => file.kind === 'delete')]
  const done: Staged[] = []
  try {
    for (const file of order) {
      await commit(file)
      done.push(file)
    }
  } catch (error) {
    await removeTemps(staged.filter((file) => !done.includes(file)))
    const lost = await restore(done)
    const kept = lost.length ? `; could not put back ${lost.join(', ')}` : '; the files already replaced were put back'
    throw new FsError(`replacing ${staged.length} files failed: ${(error as Error).message}${kept}`, 'FS_IO_ERROR', { cause: error })
  }
  await Promise.all(done.map(async (file) => (file.kind === 'delete' ? unlink(file.temp!).catch(() => {}) : undefined)))
  return staged.map((file) => file.path)
}

/** Proves and checks one entry: the file holds `expected` (or, for a new one, nothing is there and its directory is). */
async function stage(host: ReplaceHost, workspace: { readonly path: string; readonly url: string }, replacement: TextReplacement, options: { readonly maxBytes: number; readonly signal?: AbortSignal | undefined }): Promise<Staged> {
  if (replacement.expected === null) {
    if (replacement.text === null) throw new FsError(`${quote(replacement.filePath)}: nothing to create and nothing to delete`, 'FS_CONFLICT')
    const path = await host.contained(workspace, replacement.filePath, options.signal)
    if (await lstat(path).then(() => true, () => false)) throw new FsError(`${quote(replacement.filePath)} already exists; nothing was written`, 'FS_CONFLICT')
    const parent = await statOf(dirname(path))
    if (!parent.isDirectory()) throw new FsError(`${quote(dirname(path))} is not a directory`, 'FS_CONFLICT')
    return { path, kind: 'create', original: '', text: replacement.text, mode: NEW_FILE_MODE }
  }
  const current = await host.readContainedText(workspace, replacement.filePath, options)
  if (current.text !== replacement.expected) throw new FsError(`${quote(replacement.filePath)} changed since its new text was computed; nothing was written`, 'FS_CONFLICT')
  const info = await statOf(current.path)
  const kind = replacement.text === null ? 'delete' : 'write'
  // The read drops a leading byte-order mark (texts are compared and edited without it); the file
  // keeps it, in its new text and in its original put back: a rename wrote every BOM file without.
  const mark = (await startsWithByteOrderMark(current.path)) ? '\uFEFF' : ''
  return { path: current.path, kind, original: mark + current.text, text: replacement.text === null ? '' : mark + replacement.text, mode: info.mode & 0o7777, seen: info }
}

const UTF8_BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf])

/** Whether the file's first bytes are UTF-8's byte-order mark (its size and identity are checked again before the rename). */
async function startsWithByteOrderMark(path: string): Promise<boolean> {
  try {
    const handle = await open(path, 'r')
    try {
      const { bytesRead, buffer } = await handle.read(Buffer.alloc(3), 0, 3, 0)
      return bytesRead === 3 && buffer.equals(UTF8_BYTE_ORDER_MARK)
    } finally {
      await handle.close()
    }
  } catch (error) {
    throw fsErrorFrom(error, quote(path))
  }
}

/** One step: the staged text renamed over the file, linked in as a new file (never over one that appeared), or the file moved aside. */
async function commit(file: Staged): Promise<void> {
  const failed = (error: unknown) => {
    throw fsErrorFrom(error, quote(file.path))
  }
  switch (file.kind) {
    case 'write':
      await rename(file.temp!, file.path).catch(failed)
      file.temp = undefined
      return
    case 'create':
      await link(file.temp!, file.path).catch(failed)
      await unlink(file.temp!).catch(() => {})
      file.temp = undefined
      return
    case 'delete': {
      const aside = tempName(file.path)
      await rename(file.path, aside).catch(failed)
      file.temp = aside
      return
    }
    default:
      return assertNever(file.kind, 'replacement kind')
  }
}

async function statOf(path: string) {
  try {
    return await lstat(path)
  } catch (error) {
    throw fsErrorFrom(error, quote(path))
  }
}

/** A fresh name beside `path` (same directory, so a rename stays on one filesystem). */
function tempName(path: string): string {
  return join(dirname(path), `.${basename(path)}.dsh-${process.pid}-${process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex')}.tmp`)
}

/** A sibling of `path`, created exclusively, holding `text`. */
async function writeTemp(path: string, text: string, mode: number): Promise<string> {
  const temp = tempName(path)
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
  if (!file.seen) {
    if (await lstat(file.path).then(() => true, () => false)) throw new FsError(`${quote(file.path)} appeared while the files were being staged; nothing was written`, 'FS_CONFLICT')
    return
  }
  if ((await host.resolve(file.path)) !== file.path) throw new FsError(`${quote(file.path)} was moved or replaced by a link while it was being rewritten; nothing was written`, 'FS_CONFLICT')
  const now = await statOf(file.path)
  const seen = file.seen
  if (now.dev !== seen.dev || now.ino !== seen.ino || now.size !== seen.size || now.mtimeMs !== seen.mtimeMs) {
    throw new FsError(`${quote(file.path)} changed while it was being rewritten; nothing was written`, 'FS_CONFLICT')
  }
}

/** Removes the staged texts (never a deleted file moved aside: that one is put back by restore). */
async function removeTemps(staged: readonly Staged[]): Promise<void> {
  await Promise.all(staged.map(async (file) => (file.temp && file.kind !== 'delete' ? unlink(file.temp).catch(() => {}) : undefined)))
}

/**
 * Undoes the steps done: the original text back into each replaced file (staged and renamed, or,
 * when renaming fails again, written in place), a new file removed, a deleted one moved back;
 * returns the paths that could not be.
 */
async function restore(done: readonly Staged[]): Promise<string[]> {
  const lost: string[] = []
  for (const file of done) {
    try {
      if (file.kind === 'create') {
        await unlink(file.path)
        continue
      }
      if (file.kind === 'delete') {
        await rename(file.temp!, file.path)
        continue
      }
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
