import { basename } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Root } from '@modelcontextprotocol/client'
import type { Context } from 'cordis'

/**
 * The roots the client declares to its server (`roots/list`): the workspaces of the host's live
 * sessions, or the host's own workspace while there are none. `onChange` hears every change of
 * the list (a session in a new workspace, the last session of one ending).
 */
export class WorkspaceRoots {
  /** Workspace → live sessions in it. */
  private readonly sessions = new Map<string, number>()

  constructor(
    private readonly hostWorkspace: string,
    private readonly onChange: () => void,
  ) {}

  list(): Root[] {
    const dirs = this.sessions.size ? [...this.sessions.keys()] : [this.hostWorkspace]
    return dirs.map((dir) => ({ uri: pathToFileURL(dir).href, name: basename(dir) || dir }))
  }

  /** Follows the sessions of `ctx`'s app (when it has a sessions row); effects on `ctx`'s scope. */
  follow(ctx: Context): void {
    ctx.on('session/create', (session) => this.update(session.cwd, +1))
    ctx.on('session/end', (session) => this.update(session.cwd, -1))
  }

  private update(dir: string, delta: 1 | -1): void {
    const before = this.key()
    const count = (this.sessions.get(dir) ?? 0) + delta
    if (count > 0) this.sessions.set(dir, count)
    else this.sessions.delete(dir)
    if (this.key() !== before) this.onChange()
  }

  private key(): string {
    return this.list()
      .map((root) => root.uri)
      .join('\n')
  }
}
