import type { FileSystem } from 'dsh-core'
import { CallProofs, LSP_SYMBOL_KINDS } from 'dsh-lsp'
import { z } from 'zod'
import type { CheckedOutline, CheckedOutlineEntry, CheckedWorkspaceAnswer } from './capability-results.ts'
import type { ToolLspConfig } from './config.ts'
import { readLineTexts } from './line-text.ts'
import { StrictRange as Range } from './range-schema.ts'
import { renderUri, uriRenderer } from './render-uri.ts'
import { ellipsize } from './text-bound.ts'

/** Characters of a symbol's `detail` kept (a signature can be long). */
const DETAIL_CHARS = 120

/** Characters of a provider's note kept (a sentence or two). */
const NOTE_CHARS = 600

const Kind = z.enum(LSP_SYMBOL_KINDS)

// A type alias, not an interface: tool values must be assignable to JsonValue's index signature.
type OutlineEntry = {
  name: string
  kind: z.infer<typeof Kind>
  detail?: string
  range: z.infer<typeof Range>
  selectionRange: z.infer<typeof Range>
  children: OutlineEntry[]
}

const OutlineEntry: z.ZodType<OutlineEntry> = z.lazy(() =>
  z.strictObject({
    name: z.string(),
    kind: Kind,
    detail: z.string().exactOptional(),
    /** Zero-based, as LSP speaks; the whole declaration. */
    range: Range,
    /** Zero-based; the name itself (where a cursor for the lsp tool goes). */
    selectionRange: Range,
    children: z.array(OutlineEntry),
  }),
)

const Outline = z.strictObject({
  kind: z.literal('outline'),
  path: z.string(),
  uri: z.string(),
  complete: z.boolean(),
  /** Entries the server gave, at every depth. */
  total: z.number().int().nonnegative(),
  /** Top-level entries the server gave (kept or not). */
  topLevel: z.number().int().nonnegative(),
  /** True when entries were left out (past `maxSymbols` in source order, or deeper than `maxSymbolDepth`). */
  truncated: z.boolean(),
  symbols: z.array(OutlineEntry),
})

const Unanswered = z.strictObject({ providerId: z.string(), code: z.string(), message: z.string() })

const WorkspaceMatches = z.strictObject({
  kind: z.literal('workspaceSymbols'),
  query: z.string(),
  complete: z.boolean(),
  total: z.number().int().nonnegative(),
  truncated: z.boolean(),
  symbols: z.array(
    z.strictObject({
      name: z.string(),
      kind: Kind,
      containerName: z.string().exactOptional(),
      path: z.string(),
      uri: z.string(),
      range: Range,
      lineText: z.string().exactOptional(),
    }),
  ),
  /** Language servers that were asked and failed; the others' matches are still here. */
  unanswered: z.array(Unanswered),
  /**
   * Language servers whose answer reached the most matches they give (gopls and clangd: 100): more
   * may match than they listed. Absent when none did.
   */
  capped: z.array(z.strictObject({ providerId: z.string(), limit: z.number().int().positive() })).exactOptional(),
  /** Why an empty answer may be empty though there are matches (clangd without a compile_commands.json); absent when none. */
  notes: z.array(z.string()).exactOptional(),
})

/** The canonical value of one lsp_symbols call. */
export const SymbolsValue = z.discriminatedUnion('kind', [Outline, WorkspaceMatches])
export type SymbolsValue = z.infer<typeof SymbolsValue>
export type OutlineValue = z.infer<typeof Outline>
export type WorkspaceMatchesValue = z.infer<typeof WorkspaceMatches>

/** The outline kept: entries in source order (depth first) up to `maxSymbols`, levels up to `maxSymbolDepth`. */
export function outlineValue(config: ToolLspConfig, result: CheckedOutline): OutlineValue {
  let total = 0
  const count = (entries: readonly CheckedOutlineEntry[]): void => {
    for (const entry of entries) {
      total++
      count(entry.children)
    }
  }
  count(result.symbols)
  let kept = 0
  const keep = (entries: readonly CheckedOutlineEntry[], depth: number): OutlineEntry[] => {
    const out: OutlineEntry[] = []
    for (const entry of entries) {
      if (kept >= config.maxSymbols) break
      kept++
      const detail = entry.detail ? { detail: ellipsize(entry.detail.replace(/\s+/g, ' '), DETAIL_CHARS) } : {}
      const children = depth < config.maxSymbolDepth ? keep(entry.children, depth + 1) : []
      out.push({ name: entry.name, kind: entry.kind, ...detail, range: entry.range, selectionRange: entry.selectionRange, children })
    }
    return out
  }
  const symbols = keep(result.symbols, 1)
  return { kind: 'outline', path: renderUri(result.uri, result.resolvedWorkspaceUri), uri: result.uri, complete: result.complete, total, topLevel: result.symbols.length, truncated: kept < total, symbols }
}

/** The first `maxSymbols` matches, in the servers' order, each with its source line. */
export async function workspaceMatchesValue(fs: FileSystem, config: ToolLspConfig, query: string, answer: CheckedWorkspaceAnswer, cwd: string, signal: AbortSignal): Promise<WorkspaceMatchesValue> {
  const kept = answer.symbols.slice(0, config.maxSymbols)
  const lineTexts = await readLineTexts(new CallProofs(fs, cwd), kept, config, signal)
  const pathOf = uriRenderer(answer.resolvedWorkspaceUri)
  return {
    kind: 'workspaceSymbols',
    query,
    complete: answer.complete,
    total: answer.symbols.length,
    truncated: kept.length < answer.symbols.length,
    symbols: kept.map((symbol, index) => {
      const lineText = lineTexts[index]
      return {
        name: symbol.name,
        kind: symbol.kind,
        ...(symbol.containerName ? { containerName: symbol.containerName } : {}),
        path: pathOf(symbol.uri),
        uri: symbol.uri,
        range: symbol.range,
        ...(lineText === undefined ? {} : { lineText }),
      }
    }),
    unanswered: answer.unanswered.map((entry) => ({ providerId: entry.providerId, code: entry.code, message: ellipsize(entry.message, 300) })),
    ...(answer.capped.length ? { capped: answer.capped.map(({ providerId, limit }) => ({ providerId, limit })) } : {}),
    ...(answer.notes.length ? { notes: answer.notes.map((note) => ellipsize(note, NOTE_CHARS)) } : {}),
  }
}
