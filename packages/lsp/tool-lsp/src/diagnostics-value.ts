import { thenOrNow, type Lifetime } from 'dsh-core'
import { LSP_DIAGNOSTIC_SEVERITIES, type CallProofs, type LspDiagnosticSeverity, type LspLocation } from 'dsh-lsp'
import { z } from 'zod'
import type { CheckedDiagnostics } from './capability-results.ts'
import type { ToolLspConfig } from './config.ts'
import { readLineTexts } from './line-text.ts'
import { StrictRange as Range } from './range-schema.ts'
import { uriRenderer } from './render-uri.ts'
import { ellipsize } from './text-bound.ts'

/** Related locations kept per problem: the first few say where to look; more is noise. */
const MAX_RELATED = 3

const Severity = z.enum(LSP_DIAGNOSTIC_SEVERITIES)

const Item = z.strictObject({
  severity: Severity,
  /** Zero-based, as LSP speaks; rendered one-based. */
  range: Range,
  code: z.union([z.string(), z.number()]).exactOptional(),
  source: z.string().exactOptional(),
  message: z.string(),
  /** The trimmed source line at `range.start`. */
  lineText: z.string().exactOptional(),
  related: z.array(z.strictObject({ path: z.string(), range: Range, message: z.string() })),
})

/** The canonical value of one lsp_diagnostics call: bounded by `maxDiagnostics` and `maxResultChars`. */
export const DiagnosticsValue = z.strictObject({
  kind: z.literal('diagnostics'),
  /** The file as shown: relative to the workspace when inside it. */
  path: z.string(),
  uri: z.string(),
  /** False when the server was still indexing or its answer did not settle within the provider's wait. */
  complete: z.boolean(),
  /** The least severe problem kept. */
  severity: Severity,
  /** Everything the server reported, per severity, floor or not. */
  counts: z.strictObject({ error: z.number().int(), warning: z.number().int(), information: z.number().int(), hint: z.number().int() }),
  /** Problems at or above the floor. */
  total: z.number().int().nonnegative(),
  /** True when `items` holds only the first `maxDiagnostics` of `total`. */
  truncated: z.boolean(),
  items: z.array(Item),
})
export type DiagnosticsValue = z.infer<typeof DiagnosticsValue>

export function atOrAbove(severity: LspDiagnosticSeverity, floor: LspDiagnosticSeverity): boolean {
  return LSP_DIAGNOSTIC_SEVERITIES.indexOf(severity) <= LSP_DIAGNOSTIC_SEVERITIES.indexOf(floor)
}

/**
 * The provider's answer as the tool keeps it: problems at or above `floor`, most severe first
 * (then by position), at most `maxDiagnostics`, each with its source line and a few related places.
 * The value itself, not a promise of it, when the line text needed no wait (a warm call: the file
 * read in this call for the server, see `readLineTexts`): a writer asks after every edit.
 */
export function diagnosticsValue(proofs: CallProofs, config: ToolLspConfig, result: CheckedDiagnostics, floor: LspDiagnosticSeverity, bound: AbortSignal | Lifetime): DiagnosticsValue | Promise<DiagnosticsValue> {
  const counts = { error: 0, warning: 0, information: 0, hint: 0 }
  // Plain loops, and a sort only of two or more: a writer's answers alternate between none and a
  // few, and V8 (Node 20) deoptimised this function on the array builtins' receivers (an empty
  // array and one of objects have different maps), leaving it unoptimised for thousands of changes.
  const wanted: CheckedDiagnostics['items'][number][] = []
  const { items: given } = result
  for (let index = 0; index < given.length; index++) {
    const item = given[index]!
    counts[item.severity]++
    if (atOrAbove(item.severity, floor)) wanted.push(item)
  }
  if (wanted.length > 1) wanted.sort(mostSevereFirst)
  const kept = wanted.length > config.maxDiagnostics ? wanted.slice(0, config.maxDiagnostics) : wanted
  const locations: LspLocation[] = []
  for (let index = 0; index < kept.length; index++) locations.push({ uri: result.uri, range: kept[index]!.range })
  const lineTexts = readLineTexts(proofs, locations, config, bound)
  const value = (texts: readonly (string | undefined)[]): DiagnosticsValue => {
    const messageChars = Math.max(200, Math.floor(config.maxResultChars / 4))
    const pathOf = uriRenderer(result.resolvedWorkspaceUri)
    const items: DiagnosticsValue['items'] = []
    for (let index = 0; index < kept.length; index++) {
      const item = kept[index]!
      const lineText = texts[index]
      const related: DiagnosticsValue['items'][number]['related'] = []
      for (let at = 0; at < item.related.length && at < MAX_RELATED; at++) {
        const place = item.related[at]!
        related.push({ path: pathOf(place.uri), range: place.range, message: ellipsize(place.message, messageChars) })
      }
      items.push({
        severity: item.severity,
        range: item.range,
        ...(item.code === undefined ? {} : { code: item.code }),
        ...(item.source === undefined ? {} : { source: item.source }),
        message: ellipsize(item.message, messageChars),
        ...(lineText === undefined ? {} : { lineText }),
        related,
      })
    }
    return {
      kind: 'diagnostics',
      path: pathOf(result.uri),
      uri: result.uri,
      complete: result.complete,
      severity: floor,
      counts,
      total: wanted.length,
      truncated: kept.length < wanted.length,
      items,
    }
  }
  return thenOrNow(lineTexts, value)
}

/** Most severe first, then by position. */
function mostSevereFirst(a: CheckedDiagnostics['items'][number], b: CheckedDiagnostics['items'][number]): number {
  return LSP_DIAGNOSTIC_SEVERITIES.indexOf(a.severity) - LSP_DIAGNOSTIC_SEVERITIES.indexOf(b.severity) || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character
}
