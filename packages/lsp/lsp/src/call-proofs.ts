import { resolvedIn, type ContainedText, type FileSystem, type PathInfo, type Workspace } from 'dsh-core'

/** A file's lstat taken by its proof in this call, and the clock just before it (see `ProvenTextCache.lookup`). */
export interface ProvenStat {
  readonly at: number
  readonly info: PathInfo
  /** Which of the call's walks took it (`CallProofs.walks` before that walk): a caller tells a stat its own proof took from an older one. */
  readonly walk: number
}

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
 *
 * A file below the workspace this call proved is proven by lstats of the names below it
 * (`fs.containedBelowNow`), not resolved from `/` again: the call's own proof of the workspace (its
 * realpath and stat, made for this call) is the call's look at the workspace directory, so no walk
 * lstats it again, and that proof's stat stands for the directory's in the first walk's
 * `directoryOf`. The file's own lstat from a walk is kept for the call (`statOf`, with the walk that
 * took it), so a kept text's check in the same pass needs no second stat.
 */
export class CallProofs {
  private workspaceProof: Promise<Workspace> | undefined
  /** The workspace `workspaceProof` answered with, once it has. */
  private provenWorkspace: Workspace | undefined
  /** Proofs by workspace and the path's absolute spelling there (what `fs.contained` resolves): those awaited, and answered ones `contained` was asked for. Made once one is (most calls' proofs answer in the call: `containedNow`). */
  private files: Map<string, Promise<string>> | undefined
  /** The proofs of `files` that have answered, by the same keys. */
  private readonly answered = new Map<string, string>()
  /** The lstat each proof below the call's workspace took of its file, by canonical path. */
  private readonly stats = new Map<string, ProvenStat>()
  /** Whole texts read in this call, by canonical path, once there are two (`text`: the first). */
  private texts: Map<string, ContainedText> | undefined
  /** The first whole text read in this call (a call reads its one file: no map made for it). */
  private text: ContainedText | undefined
  /**
   * The spelling `containedNow` last answered in this call, its workspace and its canonical path: a
   * call asks about its file several times (the provider's proof, the tool's line text, its
   * grouping), each asking through a key built and hashed anew. Proofs answered are kept for the
   * whole call (`answered`), so this is what that map holds for the spelling.
   */
  private lastWorkspace: Workspace | undefined
  private lastSpelling: string | undefined
  private lastPath = ''
  /**
   * Walks below the workspace that reached their file so far. None looks at the workspace directory
   * again: the call's proof of it did (once per call, as each file is proven once per call).
   */
  private walked = 0
  /** The directories the last walk passed, with their lstats (the first walk's: the workspace too, by its proof's stat); refilled by every walk. */
  private readonly walkedDirectories = new Map<string, PathInfo>()
  /** The clock just before the call's workspace proof was asked for (the first walk's `at`: its proof's stat is among that walk's). */
  private workspaceAt: number | undefined
  /** When the last walk began, and which walk it was (see `directoryOf`). */
  private lastWalk: { at: number; walk: number } | undefined

  constructor(
    readonly fs: FileSystem,
    /** The directory the call names as its workspace (the session's cwd). */
    readonly workspaceRoot: string,
  ) {}

  /** The call's canonical workspace: `fs.workspace(workspaceRoot)`, resolved once. */
  workspace(signal?: AbortSignal): Promise<Workspace> {
    if (this.workspaceProof) return this.workspaceProof
    this.workspaceAt ??= Date.now()
    let now: Workspace | undefined
    try {
      now = this.workspaceNow(signal)
    } catch (error) {
      return Promise.reject(error)
    }
    if (now) return (this.workspaceProof = Promise.resolve(now))
    const proof = this.fs.workspace(this.workspaceRoot, signal)
    this.workspaceProof = proof
    proof.then(
      (workspace) => {
        if (this.workspaceProof === proof) this.provenWorkspace = workspace
      },
      () => {
        if (this.workspaceProof === proof) this.workspaceProof = undefined
      },
    )
    return proof
  }

  /**
   * `workspace` answered in the call, without a promise, once it has answered or when `ctx.fs`
   * proves it on the event loop (`fs.workspaceNow`: a canonical workspace resolved before); kept
   * for the call as `workspace` keeps it. Undefined while it must be awaited (`workspace` then). A
   * refusal is thrown, and not kept.
   */
  workspaceNow(signal?: AbortSignal): Workspace | undefined {
    if (this.provenWorkspace) return this.provenWorkspace
    if (this.workspaceProof) return undefined
    this.workspaceAt ??= Date.now()
    const now = this.fs.workspaceNow(this.workspaceRoot, signal)
    if (now) this.provenWorkspace = now
    return now
  }

  /**
   * `fs.contained(workspace, filePath)`, resolved once per spelling; the canonical path it proves
   * counts as proven too (an alias and its target, a URI and a relative name, share one proof).
   */
  contained(workspace: Workspace, filePath: string, signal?: AbortSignal): Promise<string> {
    const key = keyOf(workspace, resolvedIn(workspace.path, filePath))
    const files = (this.files ??= new Map())
    const known = files.get(key)
    if (known) return known
    let now: string | undefined
    try {
      now = this.answered.get(key) ?? this.provenNow(workspace, filePath, key)
    } catch (error) {
      return Promise.reject(error)
    }
    if (now !== undefined) {
      const proven = Promise.resolve(now)
      files.set(key, proven)
      return proven
    }
    const proof = this.fs.contained(workspace, filePath, signal)
    files.set(key, proof)
    proof.then(
      (path) => this.note(key, workspace, path),
      () => {
        if (files.get(key) === proof) files.delete(key)
      },
    )
    return proof
  }

  /**
   * `contained` answered in the call, without a promise, when the proof runs on the event loop (a
   * path spelled inside the workspace, see `fs.containedNow`); undefined when it must be awaited
   * (`contained` then). A refusal is thrown, and not kept.
   */
  containedNow(workspace: Workspace, filePath: string): string | undefined {
    if (filePath === this.lastSpelling && workspace === this.lastWorkspace) return this.lastPath
    const key = keyOf(workspace, resolvedIn(workspace.path, filePath))
    const path = this.answered.get(key) ?? (this.files?.has(key) ? undefined : this.provenNow(workspace, filePath, key))
    if (path !== undefined) {
      this.lastWorkspace = workspace
      this.lastSpelling = filePath
      this.lastPath = path
    }
    return path
  }

  /** The file's lstat from its proof in this call (a proof below the call's workspace that reached it). */
  statOf(path: string): ProvenStat | undefined {
    return this.stats.get(path)
  }

  /**
   * The lstat of directory `dir` taken by walk number `walk` (`walks` read just before a proof), when
   * that walk was the call's last and passed through `dir`. A caller that proved a file in this pass
   * and looks at its directories next (the lsp root finder's markers) needs no second lstat of them.
   */
  directoryOf(dir: string, walk: number): ProvenStat | undefined {
    if (this.lastWalk?.walk !== walk) return undefined
    const info = this.walkedDirectories.get(dir)
    return info ? { at: this.lastWalk.at, info, walk } : undefined
  }

  /**
   * How many walks below the workspace the call's proofs have made: a stat whose `walk` is at least
   * the count read just before a proof was taken by that proof (in the same pass, not before a wait).
   */
  get walks(): number {
    return this.walked
  }

  /** A whole text read in this call through `ctx.fs` (which proved and identified what it opened). */
  noteRead(text: ContainedText): void {
    if (this.texts) this.texts.set(text.path, text)
    else if (this.text === undefined || this.text.path === text.path) this.text = text
    else this.texts = new Map([[this.text.path, this.text], [text.path, text]])
  }

  /** The text of the canonical `path` read whole earlier in this call, if any. */
  readOf(path: string): ContainedText | undefined {
    return this.texts ? this.texts.get(path) : this.text?.path === path ? this.text : undefined
  }

  /** The proof made on the event loop and kept, or undefined when it belongs on the thread pool. */
  private provenNow(workspace: Workspace, filePath: string, key: string): string | undefined {
    if (workspace === this.provenWorkspace) {
      const walk = this.walked
      const directories = this.walkedDirectories
      directories.clear()
      this.lastWalk = undefined
      // The call's proof of the workspace looked at its directory: no walk lstats it again. The first
      // walk hands on that proof's stat as the directory's, timed from before the proof was asked for.
      const proven = walk === 0 ? this.fs.provenWorkspaceInfo(workspace) : undefined
      if (proven) directories.set(workspace.path, proven)
      const at = proven && this.workspaceAt !== undefined ? this.workspaceAt : Date.now()
      const walked = this.fs.containedBelowNow(workspace, filePath, { workspaceChecked: true, directories })
      if (walked === undefined) return undefined
      // Only a walk that reached the file went through the workspace directory's check (one resolved from / did not).
      if (walked.info) {
        this.walked = walk + 1
        this.lastWalk = { at, walk }
      }
      if (walked.info && !this.stats.has(walked.path)) this.stats.set(walked.path, { at, info: walked.info, walk })
      return this.note(key, workspace, walked.path)
    }
    const path = this.fs.containedNow(workspace, filePath)
    return path === undefined ? undefined : this.note(key, workspace, path)
  }

  /** Keeps an answered proof under its spelling and its canonical path (a promise of it only once `contained` asks). */
  private note(key: string, workspace: Workspace, path: string): string {
    this.answered.set(key, path)
    const canonical = keyOf(workspace, path)
    if (!this.answered.has(canonical)) this.answered.set(canonical, path)
    return path
  }
}

function keyOf(workspace: Workspace, absolute: string): string {
  return `${workspace.path}\0${absolute}`
}
