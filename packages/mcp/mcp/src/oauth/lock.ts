import { FileLock as SharedFileLock, type LockTimings } from 'dsh-core'
import { McpError } from '../errors.ts'

export type { LockTimings }

/** The token store's lock: dsh-core's `FileLock`, failing with `MCP_TOKEN_STORE_LOCKED`. */
export const FileLock = {
  acquire: (path: string, timings: LockTimings) => SharedFileLock.acquire(path, timings, (message) => new McpError(message, 'MCP_TOKEN_STORE_LOCKED')),
}
