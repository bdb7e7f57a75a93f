import { resolve as resolvePath } from 'node:path'
import type { ContainedText, FileSystem, Workspace } from 'dsh-core'

/**
 * The containment proofs of one call, each made once: the canonical workspace (`fs.workspace`) and
 * every file proven inside it (`fs.contained`), shared by whoever works for the call (the tool that
 * renders line text, the provider that reads the source). A call lasts milliseconds: a proof it
 * reuses is no older than the one a second `fs.contained` would make a moment later, and every read
 * still checks what it opens against the proof (`ctx.fs`'s identity and no-follow checks). Nothing
 * outlives the call: the next call proves everything afresh. A failed proof is not kept, so a
 * later asker in the same call tries again (and sees its own failure). Whole texts read in the call
 * are shared the same way (`noteRead`): the line text of a diagnostic comes from the text the
 * provider sent the server, not from a second read.
 */
export class CallProofs {
  private workspaceProof: Promise<Workspace> | undefined
  /** Proofs by workspace and the path's absolute spelling there (what `fs.contained` resolves). */
  private readonly files = new Map<string, Promise<string>>()
  /** Whole texts read in this call, by canonical path. */
  private readonly texts = new Map<string, ContainedText>()

  constructor(
    readonly fs: FileSystem,
    /** The directory the call names as its workspace (the session's cwd). */
    readonly workspaceRoot: string,
  ) {}

  /** The call's canonical workspace: `fs.workspace(workspaceRoot)`, resolved once. */
  workspace(signal?: AbortSignal): Promise<Workspace> {
    if (!this.workspaceProof) {
      const proof = this.fs.workspace(this.workspaceRoot, signal)
      this.workspaceProof = proof
      proof.catch(() => {
        if (this.workspaceProof === proof) this.workspaceProof = undefined
      })
    }
    return this.workspaceProof
  }

  /**
   * `fs.contained(workspace, filePath)`, resolved once per spelling; the canonical path it proves
   * counts as proven too (an alias and its target, a URI and a relative name, share one proof).
   */
  contained(workspace: Workspace, filePath: string, signal?: AbortSignal): Promise<string> {
    const key = keyOf(workspace, resolvePath(workspace.path, filePath))
    const known = this.files.get(key)
    if (known) return known
    const proof = this.fs.contained(workspace, filePath, signal)
    this.files.set(key, proof)
    proof.then(
      (path) => {
        const canonical = keyOf(workspace, path)
        if (!this.files.has(canonical)) this.files.set(canonical, proof)
      },
      () => {
        if (this.files.get(key) === proof) this.files.delete(key)
      },
    )
    return proof
  }

  /** A whole text read in this call through `ctx.fs` (which proved and identified what it opened). */
  noteRead(text: ContainedText): void {
    this.texts.set(text.path, text)
  }

  /** The text of the canonical `path` read whole earlier in this call, if any. */
  readOf(path: string): ContainedText | undefined {
    return this.texts.get(path)
  }
}

function keyOf(workspace: Workspace, absolute: string): string {
  return `${workspace.path}\0${absolute}`
}
