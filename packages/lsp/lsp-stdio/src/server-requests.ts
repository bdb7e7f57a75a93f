import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node'
import type { Workspace } from 'dsh-core'
import type { ProgressTracker } from './progress.ts'
import { workspaceContent } from './workspace-content.ts'

export interface ServerRequestContext {
  readonly workspace: Workspace
  readonly configuration: unknown
  readonly progress: ProgressTracker
  /** The most `vscode/content` reads of a file (the row's `maxDocumentBytes`). */
  readonly maxContentBytes: number
}

/** Looks a dotted section (`python.analysis`) up in the configured value; no section → the whole value. */
export function configurationSection(configuration: unknown, section: unknown): unknown {
  if (typeof section !== 'string' || !section) return configuration
  let node: unknown = configuration
  for (const key of section.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return null
    node = (node as Record<string, unknown>)[key]
  }
  return node ?? null
}

const REFRESH_REQUESTS = new Set([
  'workspace/semanticTokens/refresh',
  'workspace/codeLens/refresh',
  'workspace/inlayHint/refresh',
  'workspace/inlineValue/refresh',
  'workspace/diagnostic/refresh',
  'workspace/foldingRange/refresh',
  'workspace/textDocumentContent/refresh',
])

/**
 * Answers what a server may ask of its client, as the protocol says a read-only client should:
 * edits are declined with `{applied:false}`, UI requests get their "nothing chosen" answers,
 * refreshes are acknowledged, `vscode/content` gets a file inside the server's directory
 * (workspace-content.ts), and anything unknown gets MethodNotFound.
 */
export function answerServerRequest(method: string, params: unknown, context: ServerRequestContext): unknown {
  const record = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>
  switch (method) {
    case 'workspace/configuration': {
      const items = Array.isArray(record.items) ? record.items : []
      return items.map((item) => configurationSection(context.configuration, (item as { section?: unknown } | null)?.section))
    }
    case 'workspace/workspaceFolders':
      return [{ uri: context.workspace.url, name: 'workspace' }]
    case 'window/workDoneProgress/create':
      if (typeof record.token === 'string' || typeof record.token === 'number') context.progress.created(record.token)
      return null
    case 'client/registerCapability':
    case 'client/unregisterCapability':
      return null
    case 'workspace/applyEdit':
      return { applied: false, failureReason: 'this client is read-only and applies no edits' }
    case 'window/showMessageRequest':
      return null
    case 'window/showDocument':
      return { success: false }
    case 'vscode/content':
      return workspaceContent(Array.isArray(params) ? params[0] : typeof params === 'string' ? params : record.uri, context.workspace.path, context.maxContentBytes)
    default:
      if (REFRESH_REQUESTS.has(method)) return null
      return new ResponseError(ErrorCodes.MethodNotFound, `unsupported server request: ${method}`)
  }
}
