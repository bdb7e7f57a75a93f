import { chmod, mkdir, open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** Only the user may read, write or list (`$DSH_HOME` and everything in it that can hold a secret). */
export const PRIVATE_DIRECTORY_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

/**
 * Creates `directory` (and its parents) as 0700, and tightens it to 0700 when it already exists:
 * `mkdir` leaves an existing directory as it was, so a `$DSH_HOME` made 0755 by an older version
 * or by hand would stay listable by everyone.
 */
export async function ensurePrivateDirectory(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE })
  await chmod(directory, PRIVATE_DIRECTORY_MODE)
}

/**
 * Writes a file that can hold a secret: 0600 in a 0700 directory (see `ensurePrivateDirectory`),
 * through a temporary sibling and a rename, so a reader sees the old file or the new one and a file
 * that was wider before is replaced by a 0600 one.
 */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  const directory = dirname(path)
  await ensurePrivateDirectory(directory)
  await writeFileAtomically(path, text, PRIVATE_FILE_MODE)
}

/**
 * Writes `text` through a temporary sibling created with `mode` (before the umask; chmod'ed to it
 * exactly when `mode` is private), renamed over `path`. The temporary is removed if anything fails.
 */
export async function writeFileAtomically(path: string, text: string, mode = 0o666): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.getBuiltinModule('node:crypto').randomUUID()}.tmp`)
  try {
    const handle = await open(temporary, 'wx', mode)
    try {
      await handle.writeFile(text)
      // A umask cannot widen a private mode, but an inherited ACL default could: say it plainly.
      if (mode === PRIVATE_FILE_MODE) await handle.chmod(PRIVATE_FILE_MODE)
    } finally {
      await handle.close()
    }
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}
