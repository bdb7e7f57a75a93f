import { LSP_CALL_DIRECTIONS, LSP_SYMBOL_KINDS } from 'dsh-lsp'
import { z } from 'zod'
import { AskedAt } from './asked-at.ts'
import { StrictRange as Range } from './range-schema.ts'

const OneBased = z.number().int().min(1)

/** Where a call is made: a path and the range of the call's name, with its source line. */
const Site = z.strictObject({ path: z.string(), range: Range, lineText: z.string().exactOptional() })

// A type alias, not an interface: tool values must be assignable to JsonValue's index signature.
type Edge = {
  name: string
  kind: z.infer<typeof Kind>
  detail?: string
  path: string
  uri: string
  /** The function's name where it is declared (zero-based). */
  selectionRange: z.infer<typeof Range>
  lineText?: string
  /** The call sites: in the caller's file (incoming) or in the parent's (outgoing). */
  sites: z.infer<typeof Site>[]
  calls: Edge[]
}

const Kind = z.enum(LSP_SYMBOL_KINDS)

const Edge: z.ZodType<Edge> = z.lazy(() =>
  z.strictObject({
    name: z.string(),
    kind: Kind,
    detail: z.string().exactOptional(),
    path: z.string(),
    uri: z.string(),
    selectionRange: Range,
    lineText: z.string().exactOptional(),
    sites: z.array(Site),
    calls: z.array(Edge),
  }),
)

/** The canonical value of one lsp_calls call. */
export const CallsValue = z.strictObject({
  kind: z.literal('calls'),
  direction: z.enum(LSP_CALL_DIRECTIONS),
  depth: OneBased,
  at: z.strictObject({ filePath: z.string(), line: OneBased, character: OneBased, symbol: z.string().exactOptional() }),
  /** Where the server was asked, when the provider moved `at` (a column past the end of its line is asked at the line's end). */
  askedAt: AskedAt.exactOptional(),
  complete: z.boolean(),
  /** True when `calls.maxCalls` stopped the walk. */
  truncated: z.boolean(),
  /** What is at the position (its `sites` are empty), each with its calls. */
  roots: z.array(Edge),
  /** Why no calls may have been found though there are some (clangd without a compile_commands.json); absent when none. */
  notes: z.array(z.string()).exactOptional(),
})
export type CallsValue = z.infer<typeof CallsValue>
export type CallEdge = Edge
