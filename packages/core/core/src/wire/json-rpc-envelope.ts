/** A JSON-RPC request id. */
export type JsonRpcId = string | number

/** What could be read of a JSON-RPC message known only by its first and last bytes. */
export interface JsonRpcEnvelope {
  readonly id: JsonRpcId | undefined
  /**
   * An id is there (a top-level key of the start, or closing the end) but could not be read as a
   * string or a finite number (an object, null, a number too long for JSON's doubles, a value cut
   * off): JSON-RPC 2.0 answers such a request with id null.
   */
  readonly idUnreadable: boolean
  readonly method: string | undefined
  /** The start shows `result` or `error`: an answer, which is never itself answered. */
  readonly response: boolean
}

/**
 * The id, method and kind of an over-long message from its first and last bytes (LineReader's
 * `oversized` edges). Peers write the id first (`{"jsonrpc":"2.0","id":7,…`) or last (the TypeScript
 * SDK: `…,"id":7}`), so the start is read key by key at the top level (a `params.id` is never taken
 * for the message's id) and the end for a top-level id closing the whole text.
 */
export function jsonRpcEnvelope(head: string, tail: string): JsonRpcEnvelope {
  const top = topLevelScalars(head)
  const method = top.values.get('method')
  const last = lastTopLevelId(tail)
  const id = asJsonRpcId(top.values.get('id')) ?? last?.id
  return {
    id,
    idUnreadable: id === undefined && (top.keys.has('id') || last !== undefined),
    method: typeof method === 'string' ? method : undefined,
    response: top.keys.has('result') || top.keys.has('error'),
  }
}

/** `value` when it can be a JSON-RPC id (a string or a finite number), else undefined. */
export function asJsonRpcId(value: unknown): JsonRpcId | undefined {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? value : undefined
}

/**
 * `…,"id":7}`, `…,"id":"a"}` or `…,"id":null}` closing the whole message: the top-level id written
 * last (`id` undefined when it is no usable id); undefined when no id closes the text. A number
 * longer than the whole tail closing the message (`…99999}`, its key out of sight) is taken for an
 * unreadable id: a request's only top-level number is its id, and an unreadable id is answered
 * with null, which reaches no request.
 */
function lastTopLevelId(tail: string): { id: JsonRpcId | undefined } | undefined {
  if (/^\s*[\d.eE+-]*\d\s*\}\s*$/.test(tail)) return { id: undefined }
  const match = /[,{]\s*"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|null|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(tail)
  if (!match?.[1]) return undefined
  try {
    return { id: asJsonRpcId(JSON.parse(match[1])) }
  } catch {
    return { id: undefined }
  }
}

/**
 * The keys of the outermost object in the (possibly cut-off) start of a JSON text, with the values of
 * those that are strings, numbers or null. Nested objects and arrays are stepped over.
 */
function topLevelScalars(text: string): { keys: Set<string>; values: Map<string, unknown> } {
  const keys = new Set<string>()
  const values = new Map<string, unknown>()
  let depth = 0
  for (let at = 0; at < text.length; ) {
    const char = text[at]
    if (char === '"') {
      const end = stringEnd(text, at)
      if (end < 0) break
      const colon = skipSpace(text, end)
      if (depth === 1 && text[colon] === ':') {
        const key = JSON.parse(text.slice(at, end)) as string
        keys.add(key)
        const start = skipSpace(text, colon + 1)
        const scalar = scalarAt(text, start)
        if (scalar) values.set(key, scalar.value)
        at = scalar ? scalar.end : start
        continue
      }
      at = end
      continue
    }
    if (char === '{' || char === '[') depth++
    else if (char === '}' || char === ']') depth--
    at++
  }
  return { keys, values }
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at]!)) at++
  return at
}

/** The index just past the string starting at `start` (a quote), or -1 when the text ends inside it. */
function stringEnd(text: string, start: number): number {
  for (let at = start + 1; at < text.length; at++) {
    if (text[at] === '\\') at++
    else if (text[at] === '"') return at + 1
  }
  return -1
}

function scalarAt(text: string, at: number): { value: unknown; end: number } | undefined {
  if (text[at] === '"') {
    const end = stringEnd(text, at)
    return end < 0 ? undefined : { value: JSON.parse(text.slice(at, end)) as string, end }
  }
  const literal = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|null)(?=\s*[,}])/.exec(text.slice(at, at + 64))
  return literal ? { value: JSON.parse(literal[0]) as unknown, end: at + literal[0].length } : undefined
}
