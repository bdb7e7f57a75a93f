import { fileURLToPath } from 'node:url'
import { errorMessage } from 'dsh-core'
import { LSP_OPERATIONS } from 'dsh-lsp'
import { z } from 'zod'

/** The longest filePath taken (Linux's PATH_MAX): anything longer cannot name a file, and errors repeat it. */
export const MAX_FILE_PATH_CHARS = 4096

/** Whitespace (a symbol is one name) or half of a surrogate pair (it could never match source text). */
const NOT_IN_SYMBOL = /[\s\p{Cs}]/u
const NOT_BLANK = /\S/
/** Whitespace before or after a path: a model's slip ("a.ts\n" named no file and read as a language no server handles). */
const SPACE_AROUND = /^\s|\s$/
/** A `file:` URI, as the tools' own values spell places (`uri`). */
const FILE_URI = /^file:\/\//i

/**
 * A `filePath` argument, shared by every LSP tool: a path relative to the workspace or absolute, or
 * a `file:` URI, read as the local path it names. Blank, or with whitespace around it, is refused
 * with one message each, rather than sent on as a name no file has.
 */
export function filePathField(description: string) {
  return z
    .string()
    .max(MAX_FILE_PATH_CHARS)
    .regex(NOT_BLANK, 'filePath must not be blank')
    .refine((path) => !NOT_BLANK.test(path) || !SPACE_AROUND.test(path), 'filePath must not start or end with whitespace')
    .transform((path, ctx) => {
      if (!FILE_URI.test(path)) return path
      try {
        return fileURLToPath(path)
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `filePath is a file: URI that names no local path (${errorMessage(error)})` })
        return z.NEVER
      }
    })
    .describe(description)
}

/** Whether `filePathField` takes `path` as it is: what the tools' `quickArgs` pass without zod. */
export function isPlainFilePath(path: unknown): path is string {
  return typeof path === 'string' && path.length <= MAX_FILE_PATH_CHARS && NOT_BLANK.test(path) && !SPACE_AROUND.test(path) && !FILE_URI.test(path)
}

/**
 * Where a call points: a file, a one-based line, and a column or a symbol on the line. Shared by
 * the `lsp` tool and the tools that take a position (`lsp_rename`, `lsp_calls`).
 */
export const anchorFields = {
  filePath: filePathField('The source file holding the symbol, relative to the workspace or absolute.'),
  line: z.number().int().min(1).describe('One-based line of the symbol.'),
  character: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('One-based column of the symbol, counted in UTF-16 code units. Required without symbol; with symbol it only picks the nearest occurrence.'),
  symbol: z
    .string()
    .min(1)
    .max(200)
    .refine((symbol) => !NOT_IN_SYMBOL.test(symbol), 'symbol must be one name as written in the source, without spaces')
    .optional()
    .describe(
      'The identifier at the position, exactly as written in the source (e.g. "area", not "shape.area()"). Pass it whenever you know the name: the tool finds its column on the line, and the line itself if it is a few lines off.',
    ),
  occurrence: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('With symbol: which occurrence of it on the line, counting from 1. Default: the one nearest character, or the first.'),
}

/** `character` is required without `symbol`, and `occurrence` means nothing without it. */
export function checkAnchor(args: { readonly character?: number | undefined; readonly symbol?: string | undefined; readonly occurrence?: number | undefined }, ctx: z.RefinementCtx): void {
  if (args.symbol !== undefined) return
  if (args.character === undefined) ctx.addIssue({ code: 'custom', path: ['character'], message: 'character is required when symbol is not given' })
  if (args.occurrence !== undefined) ctx.addIssue({ code: 'custom', path: ['occurrence'], message: 'occurrence counts occurrences of symbol; give symbol too' })
}

/**
 * The model-facing arguments. Validated by the tools runtime before `execute` runs, so a bad
 * operation, a blank path, a zero/fractional position or a missing column is `INVALID_ARGS` and
 * never reaches a server.
 */
export const LspToolInput = z
  .strictObject({
    operation: z
      .enum(LSP_OPERATIONS)
      .describe('goToDefinition, findReferences (includes the declaration), goToImplementation, or hover.'),
    ...anchorFields,
  })
  .superRefine(checkAnchor)
export type LspToolInput = z.infer<typeof LspToolInput>

const OPERATIONS: ReadonlySet<unknown> = new Set(LSP_OPERATIONS)
const ANCHOR_KEYS: ReadonlySet<string> = new Set(['filePath', 'line', 'character', 'symbol', 'occurrence'])

function positiveInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1
}

/**
 * True when `args` is an anchor `anchorFields` and `checkAnchor` accept as they are, besides the
 * keys `extra` allows (checked by the caller). A subset of what the schema takes: anything unusual
 * is left to it.
 */
function quickAnchor(args: Record<string, unknown>, extra: string): boolean {
  for (const key in args) if (key !== extra && !ANCHOR_KEYS.has(key)) return false
  const { filePath, line, character, symbol, occurrence } = args
  if (!isPlainFilePath(filePath)) return false
  if (!positiveInteger(line)) return false
  if (character !== undefined && !positiveInteger(character)) return false
  if (symbol === undefined) return character !== undefined && occurrence === undefined
  if (typeof symbol !== 'string' || symbol.length < 1 || symbol.length > 200 || NOT_IN_SYMBOL.test(symbol)) return false
  return occurrence === undefined || positiveInteger(occurrence)
}

/**
 * `LspToolInput` without zod for a call it certainly accepts (the runtime's `quickArgs`): the
 * frozen arguments as they are. Anything else, valid or not, is left to the schema, which words
 * the error. Every call passes here; zod's parse of these few fields was most of the runtime's
 * own work per call.
 */
export function quickLspInput(args: unknown): LspToolInput | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined
  const record = args as Record<string, unknown>
  if (!OPERATIONS.has(record.operation) || !quickAnchor(record, 'operation')) return undefined
  return record as LspToolInput
}
