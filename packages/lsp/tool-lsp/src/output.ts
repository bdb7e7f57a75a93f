import { z } from 'zod'

const Position = z.strictObject({ line: z.number().int().nonnegative(), character: z.number().int().nonnegative() })
const Range = z.strictObject({ start: Position, end: Position })

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
})

const Hover = z.strictObject({
  kind: z.literal('hover'),
  complete: z.boolean(),
  hover: z.strictObject({ contents: z.string(), range: Range.exactOptional() }).nullable(),
  /** True when `hover.contents` was cut to `maxResultChars`. */
  truncated: z.boolean(),
})

/** The canonical value of one lsp call: bounded by `maxLocations` and `maxResultChars`. */
export const LspToolValue = z.discriminatedUnion('kind', [Locations, Hover])
export type LspToolValue = z.infer<typeof LspToolValue>
export type LocationsValue = z.infer<typeof Locations>
export type HoverValue = z.infer<typeof Hover>
export type LocationEntry = z.infer<typeof Location>
export type RangeValue = z.infer<typeof Range>
