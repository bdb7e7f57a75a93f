import { constants } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'

/**
 * A small configuration or state file read outside a host (the `dsh` command's own files, a
 * workspace's `.mcp.json` listed by `dsh mcp list`): opened with `O_NONBLOCK` so a FIFO or device
 * planted in its place cannot block the open, refused unless it is a regular file, and never read
 * past `maxBytes`. A failure's message is "<file> cannot be read: <why>" and it keeps an errno-like
 * `code`: the system's (`ENOENT`, `EACCES`, …), `ENOTREGULAR` or `EFBIG`.
 */
export async function readSmallRegularFile(file: string, maxBytes: number): Promise<string> {
  const failure = (code: string, why: string, cause?: unknown) => Object.assign(new Error(`${file} cannot be read: ${why}`, { cause }), { code })
  let handle: FileHandle
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO'
    throw failure(code, OPEN_FAILURES[code] ? `${OPEN_FAILURES[code]} (${code})` : code, error)
  }
  try {
    const info = await handle.stat()
    if (!info.isFile()) throw failure('ENOTREGULAR', 'it is not a regular file')
    const tooLarge = () => failure('EFBIG', `it is larger than ${maxBytes} bytes`)
    if (info.size > maxBytes) throw tooLarge()
    // Sized by the stat (a bound of megabytes costs nothing for a small file), one byte over so the
    // end is seen; a file that grew since the stat gets room up to one byte past the bound, so it is
    // still refused, not cut.
    let buffer = Buffer.allocUnsafe(info.size + 1)
    let filled = 0
    for (;;) {
      if (filled === buffer.length) {
        const grown = Buffer.allocUnsafe(maxBytes + 1)
        buffer.copy(grown, 0, 0, filled)
        buffer = grown
      }
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null)
      if (bytesRead === 0) break
      filled += bytesRead
      if (filled > maxBytes) throw tooLarge()
    }
    return buffer.toString('utf8', 0, filled)
  } finally {
    await handle.close()
  }
}

/** What the usual reasons an open fails mean, said in words beside the errno. */
const OPEN_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  ENOTDIR: 'a part of its path is not a directory',
  ELOOP: 'a symbolic link loop',
}
