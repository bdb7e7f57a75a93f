import { z } from 'zod'
import { AskedAt } from './asked-at.ts'
import { StrictRange as Range } from './range-schema.ts'


const Location = z.strictObject({
  /** The server's URI, verbatim. */
  uri: z.string(),
  /** `uri` as shown to the model: relative to the workspace when inside it (see renderUri). */
  path: z.string(),
  /** Zero-based, as LSP speaks. */
  range: Range,
  /** The trimmed source line at `range.start`, when the file is inside the session workspace and readable. */
  lineText: z.string().exactOptional(),
})

const OneBased = z.number().int().min(1)

/** Where a call that named a `symbol` was sent: the symbol found on (or near) the line it gave. */
const Resolved = z.strictObject({
  /** As the call gave it. */
  filePath: z.string(),
  symbol: z.string(),
  /** One-based line and UTF-16 column the query was sent at. */
  line: OneBased,
  character: OneBased,
  /** Which occurrence of the symbol on that line. */
  occurrence: OneBased,
  /** The line the call named, when the symbol was found on a nearby line instead. */
  requestedLine: OneBased.exactOptional(),
})

const Locations = z.strictObject({
  kind: z.literal('locations'),
  resolvedWorkspaceUri: z.string(),
  /** False when the server was still indexing: cross-file results may be missing. */
  complete: z.boolean(),
  /** How many locations the server returned. */
  total: z.number().int().nonnegative(),
  /** True when `locations` holds only the first `maxLocations` of `total`. */
  truncated: z.boolean(),
  locations: z.array(Location),
  /** Present when the call named a `symbol`. */
  resolved: Resolved.exactOptional(),
  /** Present when the position was moved: a column past the end of its line is asked at the line's end. */
  askedAt: AskedAt.exactOptional(),
})

const Hover = z.strictObject({
  kind: z.literal('hover'),
  complete: z.boolean(),
  hover: z.strictObject({ contents: z.string(), range: Range.exactOptional() }).nullable(),
  /** True when `hover.contents` was cut to `maxResultChars`. */
  truncated: z.boolean(),
  /** Present when the call named a `symbol`. */
  resolved: Resolved.exactOptional(),
  /** Present when the position was moved: a column past the end of its line is asked at the line's end. */
  askedAt: AskedAt.exactOptional(),
})

/** The canonical value of one lsp call: bounded by `maxLocations` and `maxResultChars`. */
export const LspToolValue = z.discriminatedUnion('kind', [Locations, Hover])
export type LspToolValue = z.infer<typeof LspToolValue>
export type LocationsValue = z.infer<typeof Locations>
export type HoverValue = z.infer<typeof Hover>
export type LocationEntry = z.infer<typeof Location>
export type RangeValue = z.infer<typeof Range>
export type ResolvedSymbol = z.infer<typeof Resolved>
