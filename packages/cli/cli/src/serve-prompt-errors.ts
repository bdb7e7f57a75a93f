import { FsError, quote } from 'dsh-core'
import { McpError } from 'dsh-mcp'
import { RpcCode, RpcError } from './serve-rpc.ts'

/** `ctx.fs` codes that say the skill's file itself cannot be a skill (until someone changes it). */
const BROKEN_FILE = new Set<string>(['FS_NOT_TEXT', 'FS_TOO_LARGE', 'FS_NOT_REGULAR_FILE'])
/** System errors of the same kind, which `ctx.fs` codes `FS_IO_ERROR` (a link loop, a name too long). */
const BROKEN_PATH = new Set<string>(['ELOOP', 'ENAMETOOLONG', 'EISDIR'])
/** SEP-2640's checks of an imported skill: what the MCP server served is not what its listing described. */
const BROKEN_IMPORT = new Set<string>(['MCP_SKILL_SIZE_MISMATCH', 'MCP_SKILL_DIGEST_MISMATCH', 'MCP_SKILL_FRONTMATTER_MISMATCH', 'MCP_SKILL_FILE_UNLISTED'])
/**
 * An MCP server's answers that say the skill's file was asked for wrongly or is not there: -32602, and
 * -32002 (resource not found, before 2026-07-28). Any other answer (-32603, a server's own -320xx) is
 * its failure, not the request's.
 */
const CLIENT_ERRORS = new Set<number>([RpcCode.INVALID_PARAMS, -32002])

/**
 * The answer to a `prompts/get` whose skill failed to load, by whose fault it is. The skill cannot be
 * a prompt (its file is broken, not text, too large; an imported skill's content fails its digest, or
 * its MCP server says the file is not there): -32602, as the later loads once the skill has left the
 * catalog. The server failed at a request that was right (a file-system error such as EIO, EMFILE or
 * EACCES; an MCP server down, timing out, failing): -32603, which a client may send again. Either way
 * the message is the reason with its code, and `data.code` the code (`data.rpcCode` the MCP server's
 * own). Undefined for anything else (an abort), which goes on as it is.
 */
export function promptLoadError(name: string, error: unknown): RpcError | undefined {
  if (error instanceof FsError) {
    if (error.code === 'FS_ABORTED') return undefined
    return answer(name, error, brokenFile(error) ? RpcCode.INVALID_PARAMS : RpcCode.INTERNAL_ERROR)
  }
  if (error instanceof McpError) {
    const broken = BROKEN_IMPORT.has(error.code) || (error.code === 'MCP_SERVER_ERROR' && error.rpcCode !== undefined && CLIENT_ERRORS.has(error.rpcCode))
    return answer(name, error, broken ? RpcCode.INVALID_PARAMS : RpcCode.INTERNAL_ERROR, error.rpcCode === undefined ? {} : { rpcCode: error.rpcCode })
  }
  return undefined
}

function answer(name: string, error: FsError | McpError, code: number, extra: Record<string, unknown> = {}): RpcError {
  const verb = code === RpcCode.INVALID_PARAMS ? 'cannot be loaded' : 'could not be loaded'
  return new RpcError(code, `skill ${quote(name)} ${verb}: ${error.message} (${error.code})`, { code: error.code, ...extra })
}

/** The file is not one a skill can be, from its code or (for `FS_IO_ERROR`) the system error under it. */
function brokenFile(error: FsError): boolean {
  if (BROKEN_FILE.has(error.code)) return true
  for (let cause: unknown = error.cause, depth = 0; cause && depth < 4; cause = (cause as { cause?: unknown }).cause, depth++) {
    const code = (cause as { code?: unknown }).code
    if (typeof code === 'string' && BROKEN_PATH.has(code)) return true
  }
  return false
}
