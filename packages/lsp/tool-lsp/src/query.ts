import { assertNever, promised, quote, thenOrNow, type FileSystem, type Lifetime, type ToolExecution } from 'dsh-core'
import { CallProofs, LspError, type LspOperation, type LspPosition, type LspService } from 'dsh-lsp'
import { askedAtValue, type AskedAt } from './asked-at.ts'
import type { ToolLspConfig } from './config.ts'
import type { LspToolInput } from './input.ts'
import { readLineTexts } from './line-text.ts'
import type { HoverValue, LocationsValue, LspToolValue, ResolvedSymbol } from './output.ts'
import { checkProviderResult, type ProviderResult } from './provider-result.ts'
import { uriRenderer } from './render-uri.ts'
import { resolveSymbol } from './resolve-symbol.ts'
import { cutCharacters } from './text-bound.ts'
import { serverTimedOut } from './timeout-hint.ts'

type LocationsResult = Extract<ProviderResult, { kind: 'locations' }>
type HoverResult = Extract<ProviderResult, { kind: 'hover' }>

/** A position as the model gives it (see `anchorFields`). */
export type AnchorArgs = Pick<LspToolInput, 'filePath' | 'line' | 'character' | 'symbol' | 'occurrence'>

/** The services a call uses (taken once at load; the plugin is re-applied if either is replaced). */
export interface LspToolServices {
  readonly lsp: LspService
  readonly fs: FileSystem
}

/**
 * One lsp call: the session's workspace, a seam query, and the bounded canonical value. One promise
 * of its own on a warm call: the query's answer is taken up by one `then`, and the line text of its
 * locations is a value when every file is proven and kept (see `readLineTexts`).
 */
export function queryLsp(services: LspToolServices, config: ToolLspConfig, args: LspToolInput, exec: ToolExecution): Promise<LspToolValue> {
  return promised(() => {
    const cwd = sessionWorkspace(exec, 'lsp')
    // One proof of the workspace and of each file for the whole call: the symbol's read's, the provider's and the line text's.
    const proofs = new CallProofs(services.fs, cwd)
    // A position as given needs no read: no await for it (a promise and a turn on every such call).
    if (args.symbol === undefined) return ask(services, config, args, exec, proofs, givenPosition(args))
    return anchorOf(services, config, args, proofs, exec.signal).then((anchor) => ask(services, config, args, exec, proofs, anchor))
  })
}

function ask(services: LspToolServices, config: ToolLspConfig, args: LspToolInput, exec: ToolExecution, proofs: CallProofs, anchor: Anchor): Promise<LspToolValue> {
  const { position, resolved } = anchor
  // The call's lifetime itself, not its signal: the provider (lsp-stdio's) follows it without an
  // AbortController and a listener per call.
  const query = services.lsp.query({ operation: args.operation, filePath: args.filePath, position, workspaceRoot: proofs.workspaceRoot, proofs }, exec.lifetime)
  return query.then(
    (raw) => {
      const result = checkProviderResult(raw)
      const askedAt = askedAtValue(position, result.askedAt)
      switch (result.kind) {
        case 'locations': {
          const value = boundLocations(proofs, config, result, exec.lifetime)
          return thenOrNow(value, (locations) => withEcho(locations, resolved, askedAt))
        }
        case 'hover':
          return withEcho(boundHover(result, config.maxResultChars), resolved, askedAt)
        default:
          return assertNever(result, 'lsp result kind')
      }
    },
    (error: unknown) => {
      // The call's budget ran out while the server worked: the runtime's TOOL_TIMEOUT, saying what was asked and what to do.
      if (exec.lifetime.expired) throw serverTimedOut(`${args.operation} at ${placeOf(args, position)}`, config.timeoutMs, error)
      throw withOperationHint(args.operation, error)
    },
  )
}

/** `min.js:1:5` (one-based, as the model gave it), with the symbol when it named one. */
export function placeOf(args: AnchorArgs, position: LspPosition): string {
  const place = `${args.filePath}:${position.line + 1}:${position.character + 1}`
  return args.symbol === undefined ? place : `${place} (symbol ${quote(args.symbol)})`
}

/** The value, echoing where a call that named a `symbol` was resolved, and where the server was asked when the provider moved the position. */
function withEcho<V extends LspToolValue>(value: V, resolved: ResolvedSymbol | undefined, askedAt: AskedAt | undefined): V {
  if (!askedAt) return resolved ? { ...value, resolved } : value
  return { ...value, ...(resolved ? { resolved } : {}), askedAt }
}

/**
 * A server's error answer with a word on which operation fits, when the operation was the wrong
 * one for what is at the position: gopls answers goToImplementation on a plain function with
 * `not a type name or method`, and a model reading only that asks again the same way. The code
 * (and `rpcCode`) stay the server's.
 */
function withOperationHint(operation: LspOperation, error: unknown): unknown {
  if (operation !== 'goToImplementation' || !(error instanceof LspError)) return error
  // A server without the operation at all (pyright): what answers instead.
  if (error.code === 'LSP_UNSUPPORTED_OPERATION') return error.reworded(`${error.message}. ${NO_IMPLEMENTATION_HINT}`)
  if (error.code === 'LSP_SERVER_ERROR') return error.reworded(`${error.message}. ${IMPLEMENTATION_HINT}`)
  return error
}

export const IMPLEMENTATION_HINT =
  'goToImplementation is for an interface, an abstract or interface method, or a type (what implements it); for a function, variable or constant use goToDefinition (where it is declared) or findReferences (where it is used)'

export const NO_IMPLEMENTATION_HINT =
  'Use findReferences instead (a class\'s subclasses and a method\'s overrides name it), or goToDefinition for where it is declared'

/** Where a query is sent, and where its symbol was found when the call named one. */
interface Anchor {
  readonly position: LspPosition
  readonly resolved?: ResolvedSymbol | undefined
}

/** The calling session's workspace. No fallback to the process directory: a server must never be started on a workspace nobody chose. */
export function sessionWorkspace(exec: ToolExecution, tool: string): string {
  const cwd = exec.session?.cwd
  if (cwd === undefined) throw new LspError(`the ${tool} tool needs a session workspace: call it from a session that has a cwd`, 'LSP_WORKSPACE_REQUIRED')
  return cwd
}

/**
 * Where to ask: the position as given, or, with `symbol`, where the symbol is in the file (read
 * before the query). A file no provider serves fails first, as it would without `symbol`,
 * instead of being read for nothing.
 */
export async function anchorOf(
  services: LspToolServices,
  config: ToolLspConfig,
  args: AnchorArgs,
  /** The call's proofs: the symbol's read proves the workspace and the source through them, once for the whole call. */
  proofs: CallProofs,
  signal: AbortSignal,
): Promise<{ position: LspPosition; resolved?: ResolvedSymbol }> {
  if (args.symbol === undefined) return givenPosition(args)
  services.lsp.assertRouted(args.filePath)
  const resolved = await resolveSymbol(proofs, { ...args, symbol: args.symbol }, config, signal)
  return { position: { line: resolved.line - 1, character: resolved.character - 1 }, resolved }
}

/** The zero-based position of a call that gave its column (the input schema requires one without symbol). */
function givenPosition(args: AnchorArgs): { position: LspPosition; resolved?: ResolvedSymbol } {
  return { position: { line: args.line - 1, character: args.character! - 1 } }
}

function boundLocations(proofs: CallProofs, config: ToolLspConfig, result: LocationsResult, lifetime: Lifetime): LocationsValue | Promise<LocationsValue> {
  const kept = result.locations.slice(0, config.maxLocations)
  const lineTexts = readLineTexts(proofs, kept, config, lifetime)
  return thenOrNow(lineTexts, (texts) => locationsValue(result, kept, texts))
}

function locationsValue(result: LocationsResult, kept: LocationsResult['locations'], lineTexts: readonly (string | undefined)[]): LocationsValue {
  const pathOf = uriRenderer(result.resolvedWorkspaceUri)
  return {
    kind: 'locations',
    resolvedWorkspaceUri: result.resolvedWorkspaceUri,
    complete: result.complete,
    total: result.locations.length,
    truncated: kept.length < result.locations.length,
    locations: kept.map((location, index) => {
      const lineText = lineTexts[index]
      const { uri, range } = location
      // Two literals, not a spread of a fresh `{ lineText }`: an object less per location.
      return lineText === undefined ? { uri, path: pathOf(uri), range } : { uri, path: pathOf(uri), range, lineText }
    }),
  }
}

function boundHover(result: HoverResult, maxChars: number): HoverValue {
  if (!result.hover) return { kind: 'hover', complete: result.complete, hover: null, truncated: false }
  const { contents, range } = result.hover
  const kept = cutCharacters(contents, maxChars)
  return {
    kind: 'hover',
    complete: result.complete,
    hover: { contents: kept, ...(range === undefined ? {} : { range }) },
    truncated: kept.length < contents.length,
  }
}
