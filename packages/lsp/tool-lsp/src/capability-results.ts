import { LSP_CALL_DIRECTIONS, LSP_DIAGNOSTIC_SEVERITIES, LSP_SYMBOL_KINDS, type LspRange, type LspSymbolKind } from 'dsh-lsp'
import { z } from 'zod'
import { checkedAgainst, isObject, quickRange } from './provider-result.ts'
import { LooseRange, LoosePosition } from './range-schema.ts'

/**
 * What `ctx.lsp.diagnostics`, `documentSymbols` and `workspaceSymbols` promise. Providers are
 * third-party code, so the tools check the answers before building on them (as `checkProviderResult`
 * does for `query`); parsing also copies them into fresh plain objects.
 */
export const Diagnostics = z.object({
  kind: z.literal('diagnostics'),
  uri: z.string(),
  resolvedWorkspaceUri: z.string(),
  complete: z.boolean(),
  items: z.array(
    z.object({
      range: LooseRange,
      severity: z.enum(LSP_DIAGNOSTIC_SEVERITIES),
      code: z.union([z.string(), z.number()]).optional(),
      source: z.string().optional(),
      message: z.string(),
      related: z.array(z.object({ uri: z.string(), range: LooseRange, message: z.string() })),
    }),
  ),
})

/** An outline entry as checked (an absent `detail` may read as undefined). */
export interface CheckedOutlineEntry {
  readonly name: string
  readonly detail?: string | undefined
  readonly kind: LspSymbolKind
  readonly range: LspRange
  readonly selectionRange: LspRange
  readonly children: readonly CheckedOutlineEntry[]
}

const OutlineEntry: z.ZodType<CheckedOutlineEntry> = z.lazy(() =>
  z.object({
    name: z.string(),
    detail: z.string().optional(),
    kind: z.enum(LSP_SYMBOL_KINDS),
    range: LooseRange,
    selectionRange: LooseRange,
    children: z.array(OutlineEntry),
  }),
)

const Outline = z.object({
  kind: z.literal('documentSymbols'),
  uri: z.string(),
  resolvedWorkspaceUri: z.string(),
  complete: z.boolean(),
  symbols: z.array(OutlineEntry),
})

const WorkspaceAnswer = z.object({
  kind: z.literal('workspaceSymbols'),
  resolvedWorkspaceUri: z.string(),
  complete: z.boolean(),
  symbols: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(LSP_SYMBOL_KINDS),
      uri: z.string(),
      range: LooseRange,
      containerName: z.string().optional(),
      providerId: z.string(),
    }),
  ),
  unanswered: z.array(z.object({ providerId: z.string(), code: z.string(), message: z.string() })),
  // A seam before the field existed (or a test's stand-in) names none.
  capped: z.array(z.object({ providerId: z.string(), limit: z.number().int().positive() })).default([]),
  notes: z.array(z.string()).default([]),
})

const Rename = z.object({
  kind: z.literal('rename'),
  resolvedWorkspaceUri: z.string(),
  oldName: z.string(),
  files: z.array(z.object({ uri: z.string(), edits: z.array(z.object({ range: LooseRange, newText: z.string() })) })),
  fileOperations: z.array(
    z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('create'), uri: z.string() }),
      z.object({ kind: z.literal('rename'), oldUri: z.string(), newUri: z.string() }),
      z.object({ kind: z.literal('delete'), uri: z.string() }),
    ]),
  ),
  complete: z.boolean(),
  askedAt: LoosePosition.optional(),
})

const CallItem = z.object({
  name: z.string(),
  kind: z.enum(LSP_SYMBOL_KINDS),
  detail: z.string().optional(),
  uri: z.string(),
  range: LooseRange,
  selectionRange: LooseRange,
})

/** A call edge as checked. */
export interface CheckedCall {
  readonly item: z.infer<typeof CallItem>
  readonly fromRanges: readonly LspRange[]
  readonly calls: readonly CheckedCall[]
}

const Call: z.ZodType<CheckedCall> = z.lazy(() => z.object({ item: CallItem, fromRanges: z.array(LooseRange), calls: z.array(Call) }))

const CallHierarchy = z.object({
  kind: z.literal('callHierarchy'),
  direction: z.enum(LSP_CALL_DIRECTIONS),
  resolvedWorkspaceUri: z.string(),
  roots: z.array(z.object({ item: CallItem, calls: z.array(Call) })),
  truncated: z.boolean(),
  complete: z.boolean(),
  notes: z.array(z.string()).default([]),
  askedAt: LoosePosition.optional(),
})

export type CheckedRename = z.infer<typeof Rename>
export type CheckedCallHierarchy = z.infer<typeof CallHierarchy>
export type CheckedDiagnostics = z.infer<typeof Diagnostics>
export type CheckedOutline = z.infer<typeof Outline>
export type CheckedWorkspaceAnswer = z.infer<typeof WorkspaceAnswer>

export const checkRename = (raw: unknown): CheckedRename => checkedAgainst(Rename, raw)
export const checkCallHierarchy = (raw: unknown): CheckedCallHierarchy => checkedAgainst(CallHierarchy, raw)
export const checkDiagnostics = (raw: unknown): CheckedDiagnostics => quickDiagnostics(raw) ?? checkedAgainst(Diagnostics, raw)
export const checkOutline = (raw: unknown): CheckedOutline => checkedAgainst(Outline, raw)
export const checkWorkspaceAnswer = (raw: unknown): CheckedWorkspaceAnswer => checkedAgainst(WorkspaceAnswer, raw)

type CheckedDiagnostic = CheckedDiagnostics['items'][number]
const SEVERITIES: ReadonlySet<unknown> = new Set(LSP_DIAGNOSTIC_SEVERITIES)

/**
 * `Diagnostics`' parse of an answer it certainly accepts, without zod: fresh plain objects holding
 * only the schema's fields (as `quickResult` for a query's). Undefined for anything unusual, valid
 * or not, which the schema then decides and words. Every lsp_diagnostics call, the tool a writer
 * asks after each edit, passes here.
 */
export function quickDiagnostics(raw: unknown): CheckedDiagnostics | undefined {
  if (!isObject(raw) || raw.kind !== 'diagnostics' || typeof raw.uri !== 'string' || typeof raw.resolvedWorkspaceUri !== 'string' || typeof raw.complete !== 'boolean' || !Array.isArray(raw.items)) return undefined
  const given: unknown[] = raw.items
  const items: CheckedDiagnostic[] = new Array(given.length)
  for (let index = 0; index < given.length; index++) {
    const item = quickDiagnostic(given[index])
    if (!item) return undefined
    items[index] = item
  }
  return { kind: 'diagnostics', uri: raw.uri, resolvedWorkspaceUri: raw.resolvedWorkspaceUri, complete: raw.complete, items }
}

function quickDiagnostic(item: unknown): CheckedDiagnostic | undefined {
  if (!isObject(item) || !SEVERITIES.has(item.severity) || typeof item.message !== 'string' || !Array.isArray(item.related)) return undefined
  const { code, source } = item
  // An optional field present as undefined is copied by the schema as such: left to it.
  if ('code' in item && typeof code !== 'string' && !(typeof code === 'number' && Number.isFinite(code))) return undefined
  if ('source' in item && typeof source !== 'string') return undefined
  const range = quickRange(item.range)
  if (!range) return undefined
  const given: unknown[] = item.related
  const related: CheckedDiagnostic['related'] = new Array(given.length)
  for (let index = 0; index < given.length; index++) {
    const place = given[index]
    if (!isObject(place) || typeof place.uri !== 'string' || typeof place.message !== 'string') return undefined
    const placeRange = quickRange(place.range)
    if (!placeRange) return undefined
    related[index] = { uri: place.uri, range: placeRange, message: place.message }
  }
  return {
    range,
    severity: item.severity as CheckedDiagnostic['severity'],
    ...(code === undefined ? {} : { code: code as string | number }),
    ...(source === undefined ? {} : { source: source as string }),
    message: item.message,
    related,
  }
}
