import { realpath } from 'node:fs/promises'
import { sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node'
import { readSmallRegularFile } from 'dsh-core'

/**
 * The answer to `vscode/content` (a server asking its client for a document it will not read
 * itself: the json row's schemas in an untrusted workspace, the yaml row's http(s) schemas): a
 * `file:` URI's text when the file, symlinks resolved, is inside the server's directory; a refusal
 * for anything else. A repository's `$schema` may name any path (`file:///home/u/.docker/config.json`)
 * and the server shows what it read (an `enum`'s values in a diagnostic), so nothing outside is read.
 */
export async function workspaceContent(uri: unknown, root: string, maxBytes: number): Promise<string> {
  const refuse = (why: string) => new ResponseError(ErrorCodes.InvalidRequest, `dsh does not read ${JSON.stringify(uri)} for the language server: ${why}`)
  if (typeof uri !== 'string' || !uri.startsWith('file:')) throw refuse('only a file inside the workspace is read (no network)')
  let real: string
  try {
    real = await realpath(fileURLToPath(uri))
  } catch (error) {
    throw refuse(`it cannot be found (${(error as NodeJS.ErrnoException).code ?? 'invalid'})`)
  }
  const inside = root.endsWith(sep) ? root : root + sep
  if (!real.startsWith(inside)) throw refuse(`it is outside ${root}`)
  try {
    return await readSmallRegularFile(real, maxBytes)
  } catch (error) {
    throw refuse((error as Error).message)
  }
}
