import { assertNever, ToolError } from 'dsh-core'
import type { WebFetchRequest, WebFetchResult } from 'dsh-web'
import { z } from 'zod'
import { nestsTooDeep } from './depth.ts'
import { URL_DESCRIPTION } from './guidance.ts'
import { htmlToMarkdown } from './markdown.ts'

export const FetchInput = z.strictObject({ url: z.string().describe(URL_DESCRIPTION) })
export type FetchInput = z.infer<typeof FetchInput>

/** The canonical value of one web_fetch call: the provider's result as is. */
export const FetchValue = z.strictObject({
  url: z.string(),
  statusCode: z.number().int(),
  body: z.discriminatedUnion('kind', [z.strictObject({ kind: z.literal('html'), content: z.string() }), z.strictObject({ kind: z.literal('text'), content: z.string() })]),
  truncated: z.boolean(),
})
export type FetchValue = z.infer<typeof FetchValue>

/** Only what `web_fetch` needs from `ctx.web`. */
export interface Fetcher {
  fetch(request: WebFetchRequest, signal?: AbortSignal): Promise<WebFetchResult>
}

/** The url as given (untrimmed: the provider owns URL rules), once it is known not to be blank. */
export function requestedUrl(args: FetchInput): string {
  if (!args.url.trim()) throw new ToolError('url must be a non-empty string', 'INVALID_ARGS')
  return args.url
}

export async function runFetch(web: Fetcher, args: FetchInput, signal: AbortSignal): Promise<FetchValue> {
  const result = await web.fetch({ url: requestedUrl(args) }, signal)
  return { url: result.url, statusCode: result.statusCode, body: { kind: result.body.kind, content: result.body.content }, truncated: result.truncated }
}

const FOOTER = '\n\n(Content truncated. Fetch a more specific URL or section to see the rest.)'

export interface RenderedFetch {
  readonly text: string
  /** True when the provider, the source cut or the output cap dropped anything; the footer says so. */
  readonly truncated: boolean
}

/**
 * Renderings of frozen values, by cap: the model text and the meta's truncation flag both need
 * one, and converting a large page is the costly part of a call.
 */
const renderings = new WeakMap<FetchValue, Map<number, RenderedFetch>>()

/**
 * `Fetched <url> (HTTP <status>)`, a blank line, the body as Markdown or text; at most `cap`
 * characters in all. A frozen value (the runtime freezes every value) is converted once per cap.
 */
export function renderFetch(value: FetchValue, cap: number): RenderedFetch {
  if (!Object.isFrozen(value) || !Object.isFrozen(value.body)) return render(value, cap)
  let byCap = renderings.get(value)
  if (!byCap) renderings.set(value, (byCap = new Map()))
  let rendering = byCap.get(cap)
  if (!rendering) byCap.set(cap, (rendering = Object.freeze(render(value, cap))))
  return rendering
}

function render(value: FetchValue, cap: number): RenderedFetch {
  const header = `Fetched ${value.url} (HTTP ${value.statusCode})\n\n`
  const source = value.body.content.slice(0, cap)
  const prefix = header + renderBody(value.body.kind, source)
  const truncated = value.truncated || source.length < value.body.content.length || prefix.length > cap
  const full = truncated ? prefix + FOOTER : prefix
  if (full.length <= cap) return { text: full, truncated }
  if (cap < FOOTER.length) return { text: full.slice(0, cap), truncated }
  return { text: prefix.slice(0, cap - FOOTER.length) + FOOTER, truncated }
}

function renderBody(kind: FetchValue['body']['kind'], source: string): string {
  switch (kind) {
    case 'text':
      return source
    case 'html':
      // Too deep to walk safely, or a converter failure: the raw page is better than an error.
      if (nestsTooDeep(source)) return source
      try {
        return htmlToMarkdown(source)
      } catch {
        return source
      }
    default:
      return assertNever(kind, 'fetch body kind')
  }
}
