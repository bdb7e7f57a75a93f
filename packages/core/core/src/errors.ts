/**
 * The one error type callers route on. `code` is stable; `message` is for people.
 * Surface packages subclass it with their closed code set (`class FsError extends
 * HarnessError<FsErrorCode> {}`), so `name` tells where an error came from.
 */
export class HarnessError<Code extends string = string> extends Error {
  readonly code: Code

  constructor(message: string, code: Code, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.name = new.target.name
  }
}

export function isHarnessError(value: unknown): value is HarnessError {
  return value instanceof HarnessError
}

/** Codes owned by the tools runtime. */
export const ToolErrorCode = {
  UNKNOWN_TOOL: 'UNKNOWN_TOOL',
  INVALID_ARGS: 'INVALID_ARGS',
  INVALID_TOOL_OUTPUT: 'INVALID_TOOL_OUTPUT',
  TOOL_TIMEOUT: 'TOOL_TIMEOUT',
  ABORTED: 'ABORTED',
  ABORTED_BEFORE_DISPATCH: 'ABORTED_BEFORE_DISPATCH',
  DUPLICATE_TOOL: 'DUPLICATE_TOOL',
  INVALID_TOOL: 'INVALID_TOOL',
  /** The tool's approval mode is `deny`, or the approver said no (or failed). */
  TOOL_DENIED: 'TOOL_DENIED',
  /** The tool's approval mode is `prompt` and no approver is registered. */
  TOOL_APPROVAL_REQUIRED: 'TOOL_APPROVAL_REQUIRED',
  /** A body threw something that carries no code of its own. */
  TOOL_FAILED: 'TOOL_FAILED',
} as const
export type ToolErrorCode = (typeof ToolErrorCode)[keyof typeof ToolErrorCode]

export class ToolError extends HarnessError<ToolErrorCode> {}

/** Extracts a message from anything that was thrown, without ever throwing itself. */
export function errorMessage(value: unknown): string {
  try {
    if (value instanceof Error) return value.message || value.name
    if (typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string') {
      return (value as { message: string }).message
    }
    return String(value)
  } catch {
    return 'unprintable error value'
  }
}

export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`)
}

/** How many characters of a caller's value an error message repeats (see `quote`). */
export const QUOTE_CHARS = 200

/**
 * A caller's value as an error message repeats it: as JSON (a string in quotes), cut after `max`
 * characters with an ellipsis and the whole length, so a megabyte argument cannot come back whole
 * (`"aaaa…" (1048576 characters)`). Never throws.
 */
export function quote(value: unknown, max = QUOTE_CHARS): string {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(errorMessage(value))
  }
  if (text.length <= max) return text
  // Never end on half a surrogate pair.
  const cut = /[\uD800-\uDBFF]$/.test(text.slice(0, max)) ? max - 1 : max
  return typeof value === 'string' ? `${text.slice(0, cut)}…" (${value.length} characters)` : `${text.slice(0, cut)}… (${text.length} characters as JSON)`
}

/**
 * What ends a line for some reader: LF, CR (a terminal returns to the line's start), VT and FF,
 * NEL (U+0085), and the line and paragraph separators U+2028 and U+2029 (JavaScript, editors and
 * Markdown renderers break there). A peer's `name\u2028Error: …` read as two lines forges one of ours.
 */
const LINE_TERMINATOR = /[\n\v\f\r\u0085\u2028\u2029]/

/**
 * Text on one line (each line terminator above and the whitespace around it become one space), for
 * one-line messages. Each whitespace run is matched once. The pattern it replaces (whitespace, a
 * newline, whitespace) retried its leading whitespace from every space of a run without a newline,
 * quadratic in the run: a peer's error message of 100 KB of spaces took 30 s on the host's main
 * thread, 200 KB 87 s.
 */
export function oneLine(text: string): string {
  if (!LINE_TERMINATOR.test(text)) return text
  // (`\s` has every terminator but NEL.)
  return text.replace(/[\s\u0085]+/g, (run) => (LINE_TERMINATOR.test(run) ? ' ' : run))
}

/**
 * A failure that carries the JSON-RPC error code a peer answered with (a language server, an MCP
 * server), so callers can route on the peer's code as well as ours.
 */
export class RpcPeerError<Code extends string = string> extends HarnessError<Code> {
  /** The JSON-RPC error code the peer sent, when the failure is its error answer. */
  readonly rpcCode: number | undefined

  constructor(message: string, code: Code, options?: { cause?: unknown; rpcCode?: number }) {
    super(message, code, options?.cause === undefined ? undefined : { cause: options.cause })
    this.rpcCode = options?.rpcCode
  }
}
