import { relative, sep } from 'node:path'
import { assertNever, FsError, quote, type ToolDefinition, type ToolExecution, type Workspace } from 'dsh-core'
import { CallProofs, LspError } from 'dsh-lsp'
import { z } from 'zod'
import { checkDiagnostics, checkRename, type CheckedRename } from './capability-results.ts'
import type { ToolLspConfig } from './config.ts'
import { anchorFields, checkAnchor } from './input.ts'
import { localPath } from './line-text.ts'
import { anchorOf, placeOf, sessionWorkspace, type LspToolServices } from './query.ts'
import { withTimeoutHint } from './timeout-hint.ts'
import { checkNewName } from './rename-name.ts'
import { planFileEdit, type ChangedLine } from './rename-plan.ts'
import { fingerprintOf, RenamePreviews } from './rename-previews.ts'
import { renderRename } from './rename-render.ts'
import { RenameValue } from './rename-value.ts'
import { renderUri } from './render-uri.ts'
import { ellipsize } from './text-bound.ts'
import { symbolColumns } from './symbol-search.ts'
import { askedAtValue, type AskedAt } from './asked-at.ts'

export const RenameInput = z
  .strictObject({
    ...anchorFields,
    newName: z.string().min(1).max(200).regex(/\S/, 'newName must not be blank').describe('The new name, as it is to be written in the source.'),
    apply: z.boolean().optional().describe('false or absent: only show every edit. true: write the edit to the files (all or nothing) and report the errors after it.'),
  })
  .superRefine(checkAnchor)
export type RenameInput = z.infer<typeof RenameInput>

export const RENAME_TOOL_DESCRIPTION = [
  'Renames a symbol (variable, function, class, method, property, type) everywhere it is used, across files, as the language server computes it.',
  'Point at one use or the declaration with filePath, line and symbol. Without apply it shows every edit (file, line, before and after);',
  'with apply: true it writes them all or none, refusing if a file changed since, and reports the errors after the change.',
  'Prefer it to editing each use by hand.',
].join(' ')

/** One file of the edit, checked and planned: its text before (null: it is created) and after (null: it is deleted). */
interface Target {
  readonly uri: string
  readonly path: string
  readonly before: string | null
  readonly after: string | null
  readonly edits: number
  readonly lines: readonly ChangedLine[]
}

/** The `lsp_rename` tool: preview a rename, or apply it through `ctx.fs`. */
export function renameTool(services: LspToolServices, settings: ToolLspConfig): ToolDefinition<RenameInput, RenameValue> {
  const previews = new RenamePreviews(settings.rename.rememberedPreviews)
  return {
    name: 'lsp_rename',
    surface: 'lsp',
    description: RENAME_TOOL_DESCRIPTION,
    input: RenameInput,
    output: RenameValue,
    timeoutMs: settings.timeoutMs,
    async execute(args, exec) {
      const cwd = sessionWorkspace(exec, 'lsp_rename')
      const { signal } = exec
      // One proof of the workspace and of each file for the symbol's read, the provider and the
      // edit's files (as the lsp tool's): without them each proved the workspace again.
      const proofs = new CallProofs(services.fs, cwd)
      const { position, resolved } = await anchorOf(services, settings, args, proofs, signal)
      await refuseInInstalledPackage(proofs, args.filePath, signal)
      // The call's lifetime itself, not its signal: the provider follows it and makes no lifetime of its own for it.
      const asking = services.lsp.rename({ filePath: args.filePath, position, newName: args.newName, workspaceRoot: cwd, proofs }, exec.lifetime)
      const result = checkRename(await withTimeoutHint(asking, exec, settings, () => `the rename at ${placeOf(args, position)}`))
      checkNewName(result.oldName, args.newName)
      const workspace = await workspaceOf(proofs, signal)
      const targets = await planTargets(services, settings, workspace, proofs, result, signal)
      const fingerprint = fingerprintOf(targets.map((target) => ({ path: target.path, before: target.before ?? '\0none', after: target.after ?? '\0none' })))
      const key = JSON.stringify([workspace.path, args.filePath, position.line, position.character, args.newName])
      const value = (applied: boolean): RenameValue => renameValue(settings, result, args, position, targets, applied, resolved?.symbol)
      if (args.apply !== true) {
        previews.remember(key, fingerprint)
        return value(false)
      }
      const shown = previews.take(key)
      if (!result.complete) throw new LspError('the language server was still indexing when it computed the rename, so uses may be missing; nothing was written: try again in a moment', 'LSP_RENAME_INCOMPLETE')
      if (result.fileOperations.length && !settings.rename.allowFileOperations) {
        throw new LspError(`the rename would also ${result.fileOperations.map((operation) => describeOperation(operation, result.resolvedWorkspaceUri)).join(', ')}; file operations are not applied (rename.allowFileOperations is off), so nothing was written`, 'LSP_RENAME_FILE_OPERATION')
      }
      if (shown !== undefined && shown !== fingerprint) {
        throw new LspError('a file of the rename changed since its preview (or the edit is no longer the one shown); nothing was written: preview it again', 'LSP_RENAME_CONFLICT')
      }
      await write(services, settings, workspace, targets, signal)
      const changeOf = (target: Target) => (target.before === null ? 'created' : target.after === null ? 'deleted' : 'changed')
      for (const target of targets) services.lsp.fileChanged(target.path, { kind: changeOf(target), ...(exec.session ? { session: exec.session } : {}) })
      const written = targets.filter((target) => target.after !== null).map((target) => target.path)
      return { ...value(true), ...(await diagnosticsAfter(services, settings, cwd, written, result.resolvedWorkspaceUri, exec)) }
    },
    render: (_args, value) => renderRename(value, settings),
  }
}

async function workspaceOf(proofs: CallProofs, signal: AbortSignal): Promise<Workspace> {
  try {
    return await proofs.workspace(signal)
  } catch (error) {
    if (error instanceof FsError && error.code === 'FS_ABORTED') throw error
    throw new LspError(`workspace ${quote(proofs.workspaceRoot)} cannot be used: ${(error as Error).message}`, 'LSP_WORKSPACE_INVALID', { cause: error })
  }
}

/**
 * Every file of the edit proven inside the workspace (one that is not — a `..`, an absolute path
 * elsewhere, a symlink leading out, a URI that is no local file — refuses the whole rename), read,
 * and its edits checked against its text and applied in memory. With `rename.allowFileOperations`
 * the file operations are applied in memory first, in order (a create where a file is, a move onto
 * one, a move or delete of a file that is not there: LSP_RENAME_CONFLICT), and text edits named by
 * a file's old name follow its move. Without it they are left for `apply` to refuse.
 */
async function planTargets(services: LspToolServices, settings: ToolLspConfig, workspace: Workspace, proofs: CallProofs, result: CheckedRename, signal: AbortSignal): Promise<Target[]> {
  const files = result.files.filter((file) => file.edits.length)
  const operations = settings.rename.allowFileOperations ? result.fileOperations : []
  if (files.length + operations.length > settings.rename.maxFiles) {
    throw new LspError(`the rename touches ${files.length + operations.length} files, more than rename.maxFiles (${settings.rename.maxFiles}); nothing was done`, 'LSP_RENAME_REFUSED')
  }
  const shown = (uri: string) => renderUri(uri, result.resolvedWorkspaceUri)
  const conflict = (why: string) => new LspError(`${why}; nothing was written. Preview the rename again`, 'LSP_RENAME_CONFLICT')
  const outside: string[] = []
  const paths = new Map<string, string>()
  const uris = [...files.map((file) => file.uri), ...result.fileOperations.flatMap((operation) => (operation.kind === 'rename' ? [operation.oldUri, operation.newUri] : [operation.uri]))]
  for (const uri of uris) {
    if (paths.has(uri)) continue
    const path = await containedPath(proofs, workspace, uri, signal)
    if (path === undefined) outside.push(shown(uri))
    else paths.set(uri, path)
  }
  if (outside.length) {
    throw new LspError(`the rename reaches outside the workspace ${workspace.path} (${outside.slice(0, 5).join(', ')}${outside.length > 5 ? `, and ${outside.length - 5} more` : ''}); refused whole, nothing was written`, 'LSP_RENAME_OUTSIDE_WORKSPACE')
  }
  const installed = [...paths].filter(([, path]) => inInstalledPackage(workspace.path, path)).map(([uri]) => shown(uri))
  if (installed.length) throw installedPackageEdit(installed)
  /** Each file touched, by canonical path: its text on disk (null: none) and as the edit leaves it. */
  const state = new Map<string, { uri: string; original: string | null; text: string | null; edits: number; lines: ChangedLine[] }>()
  const fileAt = async (uri: string) => {
    const path = paths.get(uri)!
    let entry = state.get(path)
    if (!entry) {
      const original = await readIfThere(services, settings, workspace, path, shown(uri), signal, operations.length > 0)
      state.set(path, (entry = { uri, original, text: original, edits: 0, lines: [] }))
    }
    return entry
  }
  const movedTo = new Map<string, string>()
  /** Which name (after moves) each file's text edits came under: one file named twice (a symlink and its target) would take both edits. */
  const editedAs = new Map<string, string>()
  for (const operation of operations) {
    switch (operation.kind) {
      case 'create': {
        const file = await fileAt(operation.uri)
        if (file.text !== null) throw conflict(`the rename would create ${shown(operation.uri)}, which exists`)
        file.text = ''
        break
      }
      case 'rename': {
        const from = await fileAt(operation.oldUri)
        const to = await fileAt(operation.newUri)
        if (from.text === null) throw conflict(`the rename would move ${shown(operation.oldUri)}, which is not there`)
        if (to.text !== null) throw conflict(`the rename would move ${shown(operation.oldUri)} onto ${shown(operation.newUri)}, which exists`)
        to.text = from.text
        from.text = null
        movedTo.set(operation.oldUri, operation.newUri)
        break
      }
      case 'delete': {
        const file = await fileAt(operation.uri)
        if (file.text === null) throw conflict(`the rename would delete ${shown(operation.uri)}, which is not there`)
        file.text = null
        break
      }
      default:
        assertNever(operation, 'file operation')
    }
  }
  for (const { uri: named, edits } of files) {
    let uri = named
    for (let next = movedTo.get(uri); next !== undefined; next = movedTo.get(uri)) uri = next
    const file = await fileAt(uri)
    const as = editedAs.get(paths.get(uri)!)
    if (as !== undefined && as !== uri) throw conflict(`the language server's edit names one file twice, as ${shown(as)} and ${shown(uri)} (a symlink and its target): applying both would edit it twice`)
    editedAs.set(paths.get(uri)!, uri)
    if (file.text === null) throw conflict(`the language server's edit names ${shown(named)}, which the rename deletes or which is not there`)
    const plan = planFileEdit(file.text, edits, result.oldName)
    if (!plan.ok) {
      throw conflict(`the language server's edit does not fit ${shown(named)} as it is on disk (${plan.problem}): the file changed after the server last read it`)
    }
    file.text = plan.after
    file.edits += plan.edits
    file.lines.push(...plan.lines)
  }
  return [...state].map(([path, file]) => ({ uri: file.uri, path, before: file.original, after: file.text, edits: file.edits, lines: file.lines }))
}

/**
 * The file's text, or null when nothing is there and `mayBeMissing` (a file operation may create it).
 * `path` was just proven through the call's proofs: the read checks it again without resolving it again.
 */
async function readIfThere(services: LspToolServices, settings: ToolLspConfig, workspace: Workspace, path: string, shown: string, signal: AbortSignal, mayBeMissing: boolean): Promise<string | null> {
  try {
    return (await services.fs.readContainedText(workspace, path, { maxBytes: settings.rename.maxFileBytes, signal, proven: true })).text
  } catch (error) {
    if (error instanceof FsError && error.code === 'FS_ABORTED') throw error
    if (mayBeMissing && error instanceof FsError && error.code === 'FS_NOT_FOUND') return null
    throw new LspError(`the rename's file ${shown} cannot be read: ${(error as Error).message}`, 'LSP_SOURCE_INVALID', { cause: error })
  }
}

/** The canonical local path of a `file:` URI inside the workspace, else undefined: proven through the call's proofs (the source was, for the provider). */
async function containedPath(proofs: CallProofs, workspace: Workspace, uri: string, signal: AbortSignal): Promise<string | undefined> {
  const local = localPath(uri)
  if (local === undefined) return undefined
  try {
    return await proofs.contained(workspace, local, signal)
  } catch (error) {
    if (error instanceof FsError && error.code === 'FS_OUTSIDE_WORKSPACE') return undefined
    throw error
  }
}

/** All files or none, each still holding the text the edit was checked against (a new one: still not there). */
async function write(services: LspToolServices, settings: ToolLspConfig, workspace: Workspace, targets: readonly Target[], signal: AbortSignal): Promise<string[]> {
  const changed = targets.filter((target) => target.before !== target.after)
  try {
    return await services.fs.replaceContainedTexts(workspace, changed.map((target) => ({ filePath: target.path, expected: target.before, text: target.after })), { maxBytes: settings.rename.maxFileBytes, signal })
  } catch (error) {
    if (error instanceof FsError && error.code === 'FS_CONFLICT') throw new LspError(`${error.message}; preview the rename again`, 'LSP_RENAME_CONFLICT', { cause: error })
    if (error instanceof FsError && error.code === 'FS_OUTSIDE_WORKSPACE') throw new LspError(`${error.message}; refused whole, nothing was written`, 'LSP_RENAME_OUTSIDE_WORKSPACE', { cause: error })
    throw error
  }
}

function describeOperation(operation: CheckedRename['fileOperations'][number], workspaceUri: string): string {
  switch (operation.kind) {
    case 'create':
      return `create ${renderUri(operation.uri, workspaceUri)}`
    case 'delete':
      return `delete ${renderUri(operation.uri, workspaceUri)}`
    case 'rename':
      return `rename ${renderUri(operation.oldUri, workspaceUri)} to ${renderUri(operation.newUri, workspaceUri)}`
    default:
      return assertNever(operation, 'file operation')
  }
}

function renameValue(settings: ToolLspConfig, result: CheckedRename, args: RenameInput, position: { line: number; character: number }, targets: readonly Target[], applied: boolean, symbol: string | undefined): RenameValue {
  let linesLeft = settings.rename.maxPreviewLines
  const chars = Math.max(40, settings.lineTextChars)
  return {
    kind: 'rename',
    applied,
    oldName: result.oldName,
    newName: args.newName,
    complete: result.complete,
    at: { filePath: args.filePath, line: position.line + 1, character: position.character + 1, ...(symbol === undefined ? {} : { symbol }) },
    ...askedAtOf(position, result.askedAt),
    ...namedAlready(targets, args.newName, result.resolvedWorkspaceUri),
    totalEdits: targets.reduce((sum, target) => sum + target.edits, 0),
    files: targets.filter((target) => target.edits > 0).map((target) => {
      const kept = target.lines.slice(0, Math.max(0, linesLeft))
      linesLeft -= kept.length
      return {
        path: renderUri(target.uri, result.resolvedWorkspaceUri),
        uri: target.uri,
        edits: target.edits,
        lines: kept.map((line) => ({ line: line.line, before: ellipsize(line.before.trim(), chars), after: ellipsize(line.after.trim(), chars) })),
        lineCount: target.lines.length,
      }
    }),
    fileOperations: result.fileOperations.map((operation) =>
      operation.kind === 'rename'
        ? { kind: 'rename' as const, oldPath: renderUri(operation.oldUri, result.resolvedWorkspaceUri), newPath: renderUri(operation.newUri, result.resolvedWorkspaceUri) }
        : { kind: operation.kind, path: renderUri(operation.uri, result.resolvedWorkspaceUri) },
    ),
  }
}

/** Each written file's errors as the servers see the new text (the first `diagnosticsFiles` files). */
async function diagnosticsAfter(
  services: LspToolServices,
  settings: ToolLspConfig,
  cwd: string,
  written: readonly string[],
  workspaceUri: string,
  exec: ToolExecution,
): Promise<Pick<RenameValue, 'diagnostics' | 'diagnosticsSkipped'>> {
  const diagnostics: NonNullable<RenameValue['diagnostics']> = []
  const skipped: NonNullable<RenameValue['diagnosticsSkipped']> = []
  const shown = (path: string) => renderUri(services.fs.fileUrl(path), workspaceUri)
  if (!services.lsp.offers('diagnostics')) return {}
  for (const [index, path] of written.entries()) {
    if (index >= settings.rename.diagnosticsFiles) {
      skipped.push({ path: shown(path), reason: `past rename.diagnosticsFiles (${settings.rename.diagnosticsFiles})` })
      continue
    }
    try {
      const result = checkDiagnostics(await services.lsp.diagnostics({ filePath: path, workspaceRoot: cwd }, exec.signal))
      const errors = result.items.filter((item) => item.severity === 'error').sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character)
      diagnostics.push({
        path: shown(path),
        errors: errors.length,
        first: errors.slice(0, 3).map((item) => `${item.range.start.line + 1}:${item.range.start.character + 1}  ${ellipsize(item.message.replace(/\s+/g, ' '), 200)}`),
        complete: result.complete,
      })
    } catch (error) {
      if (exec.signal.aborted) throw error
      skipped.push({ path: shown(path), reason: error instanceof LspError || error instanceof FsError ? `${error.code}: ${ellipsize(error.message, 200)}` : ellipsize(String(error), 200) })
    }
  }
  return { diagnostics, ...(skipped.length ? { diagnosticsSkipped: skipped } : {}) }
}

/** The value's `askedAt` when the provider moved the position (a column past the end of its line). */
function askedAtOf(position: { line: number; character: number }, askedAt: { line: number; character: number } | undefined): { askedAt?: AskedAt } {
  const value = askedAtValue(position, askedAt)
  return value ? { askedAt: value } : {}
}

/** Files of the edit listed where the new name already stands, at most. */
const MAX_NAMED_ALREADY = 5

/**
 * Where `newName` already stands as a name in a file the edit changes (its first line there), for
 * the value's `namedAlready`. tsserver and pyright rename into a name in scope without a word
 * (`const bom` to `useBom` wrote `export const useBom = useBom + 1`; pyright's `report` to
 * `summary` left two `def summary`); gopls and clangd refuse it. The tool cannot tell a collision
 * from a name in another scope, so it says where to look rather than refusing.
 */
function namedAlready(targets: readonly Target[], newName: string, workspaceUri: string): { namedAlready?: { path: string; line: number }[] } {
  const found: { path: string; line: number }[] = []
  for (const target of targets) {
    if (found.length >= MAX_NAMED_ALREADY) break
    if (target.before === null || target.edits === 0 || !target.before.includes(newName)) continue
    const lines = target.before.split(/\r\n|\n|\r/)
    const at = lines.findIndex((line) => line.includes(newName) && symbolColumns(line, newName).length > 0)
    if (at >= 0) found.push({ path: renderUri(target.uri, workspaceUri), line: at + 1 })
  }
  return found.length ? { namedAlready: found } : {}
}

function installedPackageEdit(installed: readonly string[]): LspError {
  return new LspError(
    `the rename would edit an installed package (${installed.slice(0, 5).join(', ')}${installed.length > 5 ? `, and ${installed.length - 5} more` : ''}): an install puts it back, and the server renames only what it sees from there, not the workspace's code that uses it. Nothing was renamed; rename in the workspace's own code (at its import, TypeScript writes an alias)`,
    'LSP_RENAME_REFUSED',
  )
}

/**
 * A rename asked at a place inside an installed package is refused before the server is asked: the
 * edit always renames the name at that place, so planTargets would refuse it anyway. Asking cost
 * tsserver 2-5 s (a warm server, loaded machine; its log): the file opened alone made an inferred
 * project (every default lib loaded, and automatic type acquisition's `npm install types-registry`
 * in a trusted workspace), and with no workspace file open then, tsserver dropped the configured
 * project, rebuilt on the next query for 2-3 s more. A path that cannot be proven here is left
 * to the provider, which fails it with its own code.
 */
async function refuseInInstalledPackage(proofs: CallProofs, filePath: string, signal: AbortSignal): Promise<void> {
  let path: string
  let workspace: Workspace
  try {
    workspace = await proofs.workspace(signal)
    path = await proofs.contained(workspace, filePath, signal)
  } catch (error) {
    if (error instanceof FsError && error.code === 'FS_ABORTED') throw error
    return
  }
  if (inInstalledPackage(workspace.path, path)) throw installedPackageEdit([relative(workspace.path, path).split(sep).join('/')])
}

/**
 * A canonical path below the workspace inside a `node_modules` directory: a dependency as
 * installed. Asked at a declaration in `node_modules/fake/index.d.ts`, tsserver renamed it there
 * alone, and the answer after `apply` read "No errors in the changed files" while every importer
 * in the workspace was broken. A workspace package linked into node_modules (pnpm) resolves to its
 * own directory, which is not refused.
 */
function inInstalledPackage(workspacePath: string, path: string): boolean {
  const below = relative(workspacePath, path)
  return below.split(sep).includes('node_modules')
}
