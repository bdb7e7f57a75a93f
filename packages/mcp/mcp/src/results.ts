import { capText, oneLine, readableText, type CutNote, type JsonObject, type JsonValue } from 'dsh-core'

export type { CutNote }

/**
 * The canonical value of a successful call: every block as the server sent it, and its structured
 * content. An intersection, not `interface … extends JsonObject`: the optional member would clash
 * with the index signature in a consumer compiling without `exactOptionalPropertyTypes`.
 */
export type CallValue = JsonObject & {
  readonly content: readonly JsonValue[]
  readonly structuredContent?: JsonValue
}

/** A `tools/call` answer, classified: a value for a success, the server's content for an `isError` answer. */
export type Classified = { readonly kind: 'success'; readonly value: CallValue } | { readonly kind: 'tool-error'; readonly content: readonly JsonValue[] }

/**
 * Classifies a raw `tools/call` result (already known to be a JSON object). Servers of the
 * 2024-10-07 protocol answer `{toolResult}` instead of `content`; that becomes one text block.
 */
export function classifyCallResult(result: JsonObject): Classified {
  const content: readonly JsonValue[] = Array.isArray(result.content) ? result.content : [{ type: 'text', text: legacyText(result) }]
  if (result.isError === true) return { kind: 'tool-error', content }
  const value: CallValue = result.structuredContent === undefined ? { content } : { content, structuredContent: result.structuredContent }
  return { kind: 'success', value }
}

function legacyText(result: JsonObject): string {
  if (!('toolResult' in result)) return '(no output)'
  const text = JSON.stringify(result.toolResult)
  return typeof text === 'string' ? text : '(no output)'
}

/**
 * What the model sees of a result's content: text blocks joined by newlines, in order, and one line
 * for every other block saying what it was and that the full data stays in the result's value.
 * Empty content shows the structured content as JSON when there is some, else says there was nothing.
 * Every line is read as a reader sees it (dsh-core's `readableText`): a server's text (a shell tool's
 * coloured log, a NUL, a window-title sequence) reaches the model without terminal escapes and
 * unseen controls, as a web page's does; the value keeps the blocks as the server sent them.
 */
export function projectContent(rawName: string, content: readonly JsonValue[], structuredContent?: JsonValue): string {
  const lines: string[] = []
  for (const block of content) {
    const line = projectBlock(block)
    if (line !== undefined) lines.push(readableText(line))
  }
  if (lines.length) return lines.join('\n')
  if (structuredContent !== undefined) return JSON.stringify(structuredContent, null, 2)
  return `(${rawName} returned no model-visible content)`
}

const KEPT = 'the data is kept in the result value, not shown here'

/**
 * Line breaks a model reads as a new line: CR, LF, and Unicode's line and paragraph separators
 * (`readableText` has already made a form feed LF and dropped VT and NEL). One class, one scan.
 */

/**
 * A server's short field shown inside a line of ours (a resource link's name, a URI, a media type):
 * on one line as dsh-core's `oneLine` puts a peer's error text (every line terminator, U+2028,
 * U+2029 and NEL included), then readable. A name holding `\nError: …` would otherwise start a line
 * the model takes for one of ours, or for another block. (In this order: `readableText` drops NEL
 * as a C1 control and turns a form feed into a newline; `oneLine` has made both a space first.)
 */
export function inlineField(text: string): string {
  return readableText(oneLine(text))
}

function projectBlock(block: JsonValue): string | undefined {
  if (typeof block !== 'object' || block === null || Array.isArray(block)) return '[unsupported MCP content block: not an object]'
  const fields = block as JsonObject
  const text = (key: string): string | undefined => (typeof fields[key] === 'string' ? (fields[key] as string) : undefined)
  const field = (key: string): string | undefined => {
    const value = text(key)
    return value === undefined ? undefined : inlineField(value)
  }
  const type = text('type')
  switch (type) {
    case 'text':
      return text('text')
    case 'image':
      return `[image: ${field('mimeType') ?? 'unknown media type'}, ${base64Bytes(text('data'))}; ${KEPT}]`
    case 'audio':
      return `[audio: ${field('mimeType') ?? 'unknown media type'}, ${base64Bytes(text('data'))}; ${KEPT}]`
    case 'resource': {
      const resource = typeof fields.resource === 'object' && fields.resource !== null && !Array.isArray(fields.resource) ? (fields.resource as JsonObject) : {}
      const uri = typeof resource.uri === 'string' ? inlineField(resource.uri) : 'no URI'
      const mime = typeof resource.mimeType === 'string' ? `, ${inlineField(resource.mimeType)}` : ''
      return `[embedded resource: ${uri}${mime}; ${KEPT}]`
    }
    case 'resource_link': {
      const name = field('name')
      const uri = field('uri')
      return name && uri ? `Resource link: ${name} (${uri})` : '[unusable resource link: its name or URI is missing]'
    }
    default:
      return `[unsupported MCP content block type ${inlineField(JSON.stringify(type ?? null))}; ${KEPT}]`
  }
}

function base64Bytes(data: string | undefined): string {
  if (data === undefined) return 'no data'
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0
  return `${Math.max(0, Math.floor((data.length * 3) / 4) - padding)} bytes`
}

export const RESULT_NOTE: CutNote = { what: 'result', setting: 'maxResultChars', rest: "is in the tool's value" }
export const ERROR_NOTE: CutNote = { what: 'error', setting: 'maxResultChars', rest: "is not kept (the server's error content)" }

/**
 * A server's text as the model is given it: dsh-core's `capText`, the one cut every text for the
 * model takes (a skill's body too): whole up to `max` characters, else cut at a line end or a
 * grapheme boundary, with the note saying how much was shown and where the rest is.
 */
export function capResultText(text: string, max: number, cut: CutNote = RESULT_NOTE): string {
  return capText(text, max, cut)
}

