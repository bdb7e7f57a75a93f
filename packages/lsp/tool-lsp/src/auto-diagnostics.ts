import type { Context } from 'cordis'
import { createUserMessage, errorMessage, HarnessError, Lifetime, throwIfAborted, type PreStepMiddleware, type UserMessage } from 'dsh-core'
import { CallProofs, type LspFileChangeKind } from 'dsh-lsp'
import { checkDiagnostics } from './capability-results.ts'
import type { ToolLspConfig } from './config.ts'
import { itemText } from './diagnostics-render.ts'
import { diagnosticsValue, type DiagnosticsValue } from './diagnostics-value.ts'
import type { LspToolServices } from './query.ts'

/** `source.kind` of the message the pre-step enters. */
export const AUTO_DIAGNOSTICS_KIND = 'lsp-diagnostics'

/** Files remembered per session between steps; a writer that touches more drops the oldest. */
const MAX_TRACKED_FILES = 1000

/** Failures that mean "nothing to check here": no server for the file, or the file is gone or outside. */
const NOTHING_TO_CHECK: ReadonlySet<string> = new Set(['LSP_UNAVAILABLE', 'LSP_UNSUPPORTED_OPERATION', 'LSP_SOURCE_INVALID', 'LSP_SOURCE_OUTSIDE_WORKSPACE'])

type Item = DiagnosticsValue['items'][number]

/** What one session changed since its last step, and which problems of each file it was already told about. */
interface SessionFiles {
  readonly changed: Map<string, LspFileChangeKind>
  readonly told: Map<string, ReadonlySet<string>>
}

/**
 * Automatic diagnostics (opt-in: `autoDiagnostics.enabled`). Writers call `ctx.lsp.fileChanged`
 * inside a session (a tool call or pre-step); before that session's next model step, this link
 * asks for the diagnostics of the files it changed and enters the problems the model has not been
 * told about yet (by message, code and source line, so a problem that only moved is not repeated;
 * one that was fixed and comes back is new again), at or above `severity`, at most `maxItems` of
 * them over at most `maxFiles` files, all within `timeoutMs`. Nothing new, nothing entered.
 */
export function autoDiagnostics(ctx: Context, services: LspToolServices, settings: ToolLspConfig): void {
  if (!settings.autoDiagnostics.enabled) return
  if (!ctx.get('sessions')) throw new Error('autoDiagnostics.enabled needs the sessions service (a dsh-core/sessions row before this one)')
  const sessions = new Map<string, SessionFiles>()
  const filesOf = (id: string): SessionFiles => {
    let files = sessions.get(id)
    if (!files) sessions.set(id, (files = { changed: new Map(), told: new Map() }))
    return files
  }
  ctx.on('lsp/file-changed', (change, session) => {
    if (!session) return
    const { changed } = filesOf(session.id)
    changed.delete(change.path)
    changed.set(change.path, change.kind)
    if (changed.size > MAX_TRACKED_FILES) changed.delete(changed.keys().next().value!)
  })
  ctx.on('session/end', (session) => sessions.delete(session.id))
  ctx.sessions.use(diagnosticsLink(services, settings, (id) => sessions.get(id)))
}

function diagnosticsLink(services: LspToolServices, settings: ToolLspConfig, filesOf: (sessionId: string) => SessionFiles | undefined): PreStepMiddleware {
  const config = settings.autoDiagnostics
  return async (input, next) => {
    const decision = await next()
    if (decision.kind === 'reject') return decision
    const files = filesOf(input.session.id)
    if (!files?.changed.size) return decision
    const changed = [...files.changed]
    files.changed.clear()
    for (const [path, kind] of changed) if (kind === 'deleted') files.told.delete(path)
    // Files no provider serves (a README) take no place among the checked ones.
    const present = changed.filter(([path, kind]) => kind !== 'deleted' && routed(services, path)).map(([path]) => path)
    const checked = present.slice(0, config.maxFiles)
    const budget = Lifetime.following(input.signal, { timeoutMs: config.timeoutMs, code: 'LSP_AUTO_DIAGNOSTICS' })
    try {
      const outcomes = await Promise.all(checked.map((path) => checkFile(services, settings, path, input.session.cwd, budget.signal)))
      throwIfAborted(input.signal)
      const message = report(outcomes, files, present.length - checked.length, settings)
      return message ? { kind: 'enter', messages: [...decision.messages, message] } : decision
    } finally {
      budget.dispose()
    }
  }
}

type Outcome = { readonly path: string; readonly value: DiagnosticsValue } | { readonly path: string; readonly failed: string } | undefined

async function checkFile(services: LspToolServices, settings: ToolLspConfig, path: string, cwd: string, signal: AbortSignal): Promise<Outcome> {
  try {
    const proofs = new CallProofs(services.fs, cwd)
    const result = checkDiagnostics(await services.lsp.diagnostics({ filePath: path, workspaceRoot: cwd, proofs }, signal))
    return { path, value: await diagnosticsValue(proofs, settings, result, settings.autoDiagnostics.severity, signal) }
  } catch (error) {
    const code = error instanceof HarnessError ? error.code : signal.aborted ? 'LSP_TIMEOUT' : 'LSP_PROVIDER_FAILED'
    if (NOTHING_TO_CHECK.has(code)) return undefined
    return { path, failed: signal.aborted ? `${code}: no answer within the pre-step's ${settings.autoDiagnostics.timeoutMs} ms` : `${code}: ${errorMessage(error)}` }
  }
}

/** The problem as the model would recognise it again: not its position, which shifts with edits above it. */
function problemKey(item: Item): string {
  return JSON.stringify([item.severity, item.code ?? null, item.source ?? null, item.message, item.lineText ?? null])
}

function report(outcomes: readonly Outcome[], files: SessionFiles, unchecked: number, settings: ToolLspConfig): UserMessage | undefined {
  const { maxItems, maxFiles, severity } = settings.autoDiagnostics
  const lines: string[] = []
  const notes: string[] = []
  const summary: { path: string; new: number }[] = []
  let shown = 0
  let hidden = 0
  for (const outcome of outcomes) {
    if (!outcome) continue
    if ('failed' in outcome) {
      notes.push(`not checked: ${outcome.path} (${outcome.failed})`)
      continue
    }
    const { path, value } = outcome
    const told = files.told.get(path) ?? new Set<string>()
    const fresh = value.items.filter((item) => !told.has(problemKey(item)))
    files.told.delete(path)
    files.told.set(path, new Set(value.items.map(problemKey)))
    if (files.told.size > MAX_TRACKED_FILES) files.told.delete(files.told.keys().next().value!)
    if (!value.complete) notes.push(`${value.path}: the language server had not finished with it; problems may be missing`)
    if (!fresh.length) continue
    summary.push({ path: value.path, new: fresh.length })
    for (const item of fresh) {
      if (shown < maxItems) {
        lines.push(itemText(value.path, item))
        shown++
      } else hidden++
    }
  }
  if (hidden) lines.push(`\u2026 ${hidden} more new ${hidden === 1 ? 'problem' : 'problems'} not shown (limit ${maxItems}); lsp_diagnostics lists a file's problems.`)
  if (unchecked) notes.push(`${unchecked} more changed ${unchecked === 1 ? 'file' : 'files'} not checked (limit ${maxFiles})`)
  if (!lines.length && !notes.length) return undefined
  const floor = severity === 'error' ? 'errors' : `problems at or above ${severity}`
  const text = [`New ${floor} reported by the language server in the files changed since the last step:`, ...(lines.length ? lines : ['(none)']), ...notes.map((note) => `(${note})`)].join('\n')
  return createUserMessage(text, { kind: AUTO_DIAGNOSTICS_KIND, files: summary })
}

function routed(services: LspToolServices, path: string): boolean {
  try {
    services.lsp.assertRouted(path)
    return true
  } catch {
    return false
  }
}
