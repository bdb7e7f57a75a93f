import { join } from 'node:path'
import type { FileSystem, Workspace } from 'dsh-core'
import type { ServerConfig } from './config.ts'

/**
 * The note for an answer that may be empty only for want of the files a server needs in its root
 * to know the workspace (`workspaceIndex`: clangd's compile_commands.json), when none of them is
 * there; undefined when one is, or the row names none. One that cannot be examined counts as absent.
 * Asked only for an empty workspace search, a call hierarchy without calls and a status probe.
 */
export async function missingIndexNote(fs: FileSystem, serverId: string, index: ServerConfig['workspaceIndex'], root: Workspace, signal?: AbortSignal): Promise<string | undefined> {
  if (!index) return undefined
  for (const file of index.files) {
    const info = await fs.stat(join(root.path, file), signal).catch(() => undefined)
    if (info?.type === 'file') return undefined
  }
  return `${serverId}: no ${index.files.join(' or ')} in ${root.path}: ${index.note}.`
}
