import type { Lifetime, ToolDefinition } from 'dsh-core'
import { CallProofs, LSP_CALL_DIRECTIONS, type LspLocation } from 'dsh-lsp'
import { z } from 'zod'
import { checkCallHierarchy, type CheckedCall, type CheckedCallHierarchy } from './capability-results.ts'
import { renderCalls } from './calls-render.ts'
import { CallsValue, type CallEdge } from './calls-value.ts'
import type { ToolLspConfig } from './config.ts'
import { anchorFields, checkAnchor } from './input.ts'
import { askedAtValue } from './asked-at.ts'
import { readLineTexts } from './line-text.ts'
import { anchorOf, placeOf, sessionWorkspace, type LspToolServices } from './query.ts'
import { withTimeoutHint } from './timeout-hint.ts'
import { uriRenderer } from './render-uri.ts'
import { ellipsize } from './text-bound.ts'

/** Characters of a provider's note kept (a sentence or two). */
const NOTE_CHARS = 600

export function callsInput(settings: ToolLspConfig) {
  return z
    .strictObject({
      ...anchorFields,
      direction: z.enum(LSP_CALL_DIRECTIONS).describe('incoming: who calls the function; outgoing: what the function calls.'),
      depth: z
        .number()
        .int()
        .min(1)
        .max(settings.calls.maxDepth)
        .optional()
        .describe(`Levels to follow (1: the direct calls; default ${settings.calls.defaultDepth}, at most ${settings.calls.maxDepth}).`),
    })
    .superRefine(checkAnchor)
}
export type CallsInput = z.infer<ReturnType<typeof callsInput>>

export const CALLS_TOOL_DESCRIPTION = [
  'The call hierarchy of a function or method: who calls it (direction incoming) or what it calls (outgoing), across files, as the language server sees it.',
  'Point at its name (declaration or a use) with filePath, line and symbol; depth follows callers of callers.',
  'Each call is shown with its one-based path:line:column and source line.',
].join(' ')

/** The `lsp_calls` tool: incoming or outgoing calls, to a bounded depth and count. */
export function callsTool(services: LspToolServices, settings: ToolLspConfig): ToolDefinition<CallsInput, CallsValue> {
  return {
    name: 'lsp_calls',
    surface: 'lsp',
    description: CALLS_TOOL_DESCRIPTION,
    input: callsInput(settings),
    output: CallsValue,
    // The workspace comes from exec.session; nothing on the path asks currentSession() (as the lsp
    // tool): a call never turns Node 20/22's async hooks on for the whole host.
    ambientSession: false,
    timeoutMs: settings.timeoutMs,
    async execute(args, exec) {
      const cwd = sessionWorkspace(exec, 'lsp_calls')
      // One proof of the workspace and of each file for the whole call, the symbol's read's, the
      // provider's and the line text's (as the lsp tool's): without them the provider resolved the
      // source from / per call, and a named symbol's read proved the workspace a second time.
      const proofs = new CallProofs(services.fs, cwd)
      const { position, resolved } = await anchorOf(services, settings, args, proofs, exec.signal)
      const depth = args.depth ?? Math.min(settings.calls.defaultDepth, settings.calls.maxDepth)
      const request = { filePath: args.filePath, position, direction: args.direction, depth, maxCalls: settings.calls.maxCalls, workspaceRoot: cwd, proofs }
      // The call's lifetime itself, not its signal: the provider follows it and makes no lifetime of its own for it.
      const result = checkCallHierarchy(await withTimeoutHint(services.lsp.callHierarchy(request, exec.lifetime), exec, settings, () => `the ${args.direction} calls at ${placeOf(args, position)}`))
      const at = { filePath: args.filePath, line: position.line + 1, character: position.character + 1, ...(resolved ? { symbol: resolved.symbol } : {}) }
      const notes = result.notes.length ? { notes: result.notes.map((note) => ellipsize(note, NOTE_CHARS)) } : {}
      const askedAt = askedAtValue(position, result.askedAt)
      return { kind: 'calls', direction: result.direction, depth, at, ...(askedAt ? { askedAt } : {}), complete: result.complete, truncated: result.truncated, roots: await edgesWithLines(proofs, settings, result, exec.lifetime), ...notes }
    },
    render: (_args, value) => renderCalls(value, settings),
  }
}

/**
 * The hierarchy in the tool's shape, each function and call site with its source line (read once
 * per file, as for lsp's locations). Call sites lie in the caller's file for incoming calls and in
 * the parent's file for outgoing ones.
 */
async function edgesWithLines(proofs: CallProofs, settings: ToolLspConfig, result: CheckedCallHierarchy, lifetime: Lifetime): Promise<CallEdge[]> {
  const locations: LspLocation[] = []
  const want = (uri: string, range: LspLocation['range']) => locations.push({ uri, range }) - 1
  type Pending = { call: CheckedCall | { item: CheckedCall['item']; fromRanges: []; calls: readonly CheckedCall[] }; parentUri: string | undefined; at: number; sites: number[]; children: Pending[] }
  const collect = (call: Pending['call'], parentUri: string | undefined): Pending => {
    const siteUri = result.direction === 'incoming' ? call.item.uri : parentUri
    return {
      call,
      parentUri,
      at: want(call.item.uri, call.item.selectionRange),
      sites: siteUri === undefined ? [] : call.fromRanges.map((range) => want(siteUri, range)),
      children: call.calls.map((child) => collect(child, call.item.uri)),
    }
  }
  const roots = result.roots.map((root) => collect({ item: root.item, fromRanges: [], calls: root.calls }, undefined))
  const texts = await readLineTexts(proofs, locations, settings, lifetime)
  const path = uriRenderer(result.resolvedWorkspaceUri)
  const build = (pending: Pending): CallEdge => {
    const { item } = pending.call
    const lineText = texts[pending.at]
    return {
      name: item.name,
      kind: item.kind,
      ...(item.detail ? { detail: ellipsize(item.detail.replace(/\s+/g, ' '), 120) } : {}),
      path: path(item.uri),
      uri: item.uri,
      selectionRange: item.selectionRange,
      ...(lineText === undefined ? {} : { lineText }),
      sites: pending.sites.map((index) => {
        const site = locations[index]!
        const text = texts[index]
        return { path: path(site.uri), range: site.range, ...(text === undefined ? {} : { lineText: text }) }
      }),
      calls: pending.children.map(build),
    }
  }
  return roots.map(build)
}
