import { assertNever, capText, characterCount, fitsWithin, lazySchema, readableText, ToolError, type Lifetime } from 'dsh-core'
import type { WebBound, WebFetchRequest, WebFetchResult } from 'dsh-web'
import { z } from 'zod'
import type { FetchCache } from './cache.ts'
import type { PageConverter } from './convert/converter.ts'
import { MAIN_CONTENT_DESCRIPTION, URL_DESCRIPTION } from './guidance.ts'
import { onwardUrls } from './onward.ts'
import { pageTitle } from './page-title.ts'

export const FetchInput = z.strictObject({
  url: z.string().describe(URL_DESCRIPTION),
  mainContent: z.boolean().optional().describe(MAIN_CONTENT_DESCRIPTION),
})
export type FetchInput = z.infer<typeof FetchInput>

/**
 * The canonical value of one web_fetch call: the provider's result, and the Markdown an HTML body
 * became. Built on first use (`dsh tools` never needs it).
 */
export const FetchValue = lazySchema(() =>
  z.strictObject({
    url: z.string(),
    statusCode: z.number().int(),
    /** A PDF's body is its text (page markers included), read inside the call's budget like an HTML page's Markdown. */
    body: z.discriminatedUnion('kind', [z.strictObject({ kind: z.literal('html'), content: z.string() }), z.strictObject({ kind: z.literal('text'), content: z.string() }), z.strictObject({ kind: z.literal('pdf'), content: z.string() })]),
    truncated: z.boolean(),
    /** The HTML body as Markdown (main content only when asked), converted inside the call's budget until it passes the output cap or `fetchMaxElements`. */
    markdown: z.string().exactOptional(),
    /** Answered from the tool's cache (an earlier fetch of the same URL within `cacheTtlMs`). */
    cached: z.literal(true).exactOptional(),
    /** The body stopped before its end (the provider's deadline, a cut connection): this is what arrived, and why. */
    incomplete: z.strictObject({ code: z.enum(['WEB_FETCH_TIMEOUT', 'WEB_FETCH_CUT']), reason: z.string() }).exactOptional(),
  }),
)
export type FetchValue = z.infer<typeof FetchValue>

/** Only what `web_fetch` needs from `ctx.web`. */
export interface Fetcher {
  fetch(request: WebFetchRequest, bound?: WebBound): Promise<WebFetchResult>
}

export interface FetchSettings {
  /** Cap on the rendered text: the Markdown the model reads, header and truncation note included. */
  readonly maxOutputChars: number
  /** Main content only when the model does not say. */
  readonly mainContent: boolean
  /** Most elements of a page converted (`fetchMaxElements`). */
  readonly maxElements: number
  /** Recent answers; none when omitted. */
  readonly cache?: FetchCache
  /** Runs the HTML → Markdown conversions (a pool of converter processes for all but small pages). */
  readonly converter: PageConverter
}

/**
 * What a call gives the fetch: its lifetime, for the provider and the conversion. Not its signal:
 * reading `exec.signal` makes an AbortSignal, which (with the provider's listener on it) cost
 * more than the rest of the tool's own work on a small page.
 */
export interface FetchCall {
  readonly lifetime: Lifetime
}

/** The url as given (untrimmed: the provider owns URL rules), once it is known not to be blank. */
export function requestedUrl(args: FetchInput): string {
  if (!args.url.trim()) throw new ToolError('url must be a non-empty string', 'INVALID_ARGS')
  return args.url
}

/**
 * Fetches, then converts an HTML body here rather than at rendering: the conversion counts against
 * the call's budget (an overrun is TOOL_TIMEOUT, not a late answer, and kills the conversion's
 * process), it runs off the event loop (convert/pool.ts), and it is bounded to be linear in the page
 * (html/bound.ts).
 */
export async function runFetch(web: Fetcher, settings: FetchSettings, args: FetchInput, call: FetchCall): Promise<FetchValue> {
  const url = requestedUrl(args)
  const mainContent = args.mainContent ?? settings.mainContent
  const hit = settings.cache?.get(url, mainContent)
  if (hit) return { ...hit, cached: true }
  const result = await web.fetch({ url }, call.lifetime)
  const value = await valueOf(result, settings, mainContent, call)
  settings.cache?.put(url, value, mainContent)
  return value
}

/**
 * What the model reads of the body (a page's Markdown, a text body, a PDF's text) has no control
 * characters a reader would not see and no bidi controls (dsh-core's readable-text.ts, one scan
 * for both), taken out here rather than in the converter: the converter is its own bundle entry,
 * and a module both used would be a chunk `dsh tools` loads.
 */
async function valueOf(result: WebFetchResult, settings: FetchSettings, mainContent: boolean, call: FetchCall): Promise<FetchValue> {
  const { url, statusCode, body } = result
  // An incomplete body is a cut one, whatever the provider's flag says.
  const truncated = result.truncated || result.incomplete !== undefined
  const incomplete = result.incomplete ? { incomplete: { code: result.incomplete.code, reason: result.incomplete.reason } } : {}
  switch (body.kind) {
    case 'html': {
      // Main content is found in the whole document; what is converted after it stops at the output
      // cap (nothing past it would be shown) and at `maxElements`, a cut the value reports as truncated.
      const converted = await settings.converter.convert({ kind: 'html', html: body.content, url, mainContent, maxElements: settings.maxElements, maxChars: settings.maxOutputChars }, call.lifetime)
      // The page's HTML is kept too, and it reaches readers other than the model (`dsh call --json`
      // prints the value, a harness may show it, a stored value without Markdown is converted from
      // it by withMarkdown): its bidi and unseen controls go as the Markdown's do.
      return { url, statusCode, truncated: truncated || converted.cut === true, body: { kind: 'html', content: readableText(body.content) }, markdown: readableText(converted.text), ...incomplete }
    }
    case 'text':
      return { url, statusCode, truncated, body: { kind: 'text', content: readableText(body.content) }, ...incomplete }
    case 'pdf': {
      // Pages past the output cap are not read: the rendering would cut them.
      const { text } = await settings.converter.convert({ kind: 'pdf', bytes: body.bytes, maxChars: settings.maxOutputChars }, call.lifetime)
      return { url, statusCode, truncated, body: { kind: 'pdf', content: readableText(text) }, ...incomplete }
    }
    default:
      return assertNever(body, 'fetch body kind')
  }
}

const FOOTER = '\n\n(Content truncated. Fetch a more specific URL or section to see the rest.)'

export interface RenderedFetch {
  readonly text: string
  /** True when the provider, the source cut or the output cap dropped anything; the footer says so. */
  readonly truncated: boolean
}

/**
 * `Fetched <url> (HTTP <status>)`, a blank line, the body as Markdown or text; at most `cap`
 * characters in all. An HTML value must carry its Markdown (every value the tool returns does): the
 * converter is not part of the package root, and a page is not converted while rendering. A value
 * without it (stored, made elsewhere) gets it from `withMarkdown` (`dsh-tool-web/convert`) first.
 */
export function renderFetch(value: FetchValue, cap: number): RenderedFetch {
  const prefix = headerOf(value) + renderBody(value, cap)
  // An HTML page is converted whole, so only the provider's cut and the cap on the text drop anything.
  const truncated = value.truncated || !fitsWithin(prefix, cap)
  const footer = value.incomplete ? incompleteNote(value.incomplete) : FOOTER
  // dsh-core's cut (characters, at a line end or a grapheme boundary). One blank line between the
  // text and its footer: a text body that ends in a line break (a log cut mid-way, or cut at the cap
  // after one) had two or three.
  return { text: capText(prefix, cap, footer, { cutBefore: truncated }), truncated }
}

/**
 * The footer of a body that stopped before its end: that it is partial, why, and its code, so the
 * model neither takes the text for the whole page nor reads a cut page's missing end as absent.
 */
function incompleteNote(incomplete: NonNullable<FetchValue['incomplete']>): string {
  return `\n\n(Incomplete: ${incomplete.reason} [${incomplete.code}]. The text above is what arrived; fetching again may give the rest.)`
}

/**
 * Whether the rendering at `cap` drops anything (its footer; `renderFetch(value, cap).truncated`),
 * from lengths alone when the body's text is at hand: the meta needs the flag on every call, and
 * building the text a second time for it cost more than the rest of the tool's own work.
 */
export function rendersTruncated(value: FetchValue, cap: number): boolean {
  if (value.truncated) return true
  const body = value.body.kind === 'html' ? value.markdown : value.body.content
  // A body without text renders a note instead (EMPTY, noText): measured by rendering it.
  if (body === undefined || (value.body.kind !== 'pdf' && blank(body))) return renderFetch(value, cap).truncated
  const header = headerOf(value)
  return !fitsWithin(header, cap) || !fitsWithin(body, cap - characterCount(header))
}

function headerOf(value: FetchValue): string {
  return `Fetched ${value.url} (HTTP ${value.statusCode})\n\n`
}

/** The body as the model reads it; a text body is cut to `cap` characters and one (enough to see it overflows). */
function renderBody(value: FetchValue, cap: number): string {
  const { kind, content } = value.body
  switch (kind) {
    case 'text':
      if (blank(content)) return EMPTY
      return overflowOf(content, cap)
    case 'pdf':
      return overflowOf(content, cap)
    case 'html':
      if (value.markdown === undefined) throw new TypeError(`dsh-tool-web: the HTML value of ${value.url} carries no markdown; give it one with withMarkdown (dsh-tool-web/convert) before rendering it`)
      return blank(value.markdown) ? noText(content, value.url) : value.markdown
    default:
      return assertNever(kind, 'fetch body kind')
  }
}

/** `text`, or its first `cap` characters and one (`2 * cap + 2` UTF-16 units are at least as many). */
function overflowOf(text: string, cap: number): string {
  return text.length > 2 * cap + 2 ? text.slice(0, 2 * cap + 2) : text
}

/**
 * Whether text has nothing a reader sees: whitespace and zero-width characters (U+200B–U+200D,
 * U+2060, U+FEFF), which `trim` keeps. A page of `<p>&#8203;</p>` rendered as invisible characters,
 * which read like a failed fetch, rather than as the note saying it has no text. One character-class test.
 */
function blank(text: string): boolean {
  return !/[^\s\u200b-\u200d\u2060\ufeff]/.test(text)
}

/** A body with nothing in it (a 204, an error status without a page, an empty file). */
const EMPTY = '(The response body is empty.)'

/**
 * What the model reads for an HTML page with no text: said, rather than an empty answer that looks
 * like a failed fetch. A page built by its scripts (an app shell) has none until a browser runs
 * them, which web_fetch never does, so the way on is another URL for the same content. Its
 * `<title>`, which the conversion drops with `<head>`, is named: often the one clue to what the
 * page is (an app's name and view, a redirect page's "Moved").
 */
function noText(html: string, url: string): string {
  if (!html.trim()) return EMPTY
  const title = pageTitle(html)
  const page = title ? `The page "${title}"` : 'The page'
  // A page that sends its reader elsewhere (a refresh, frames) says where: that URL holds the content.
  const { refresh, frames } = onwardUrls(html, url)
  if (refresh) return `(${page} has no text to read: it sends the reader on to ${refresh} (a meta refresh), which web_fetch does not follow; fetch that URL.)`
  if (frames.length) return `(${page} has no text to read: its content is in frames, which web_fetch does not load; fetch ${frames.join(', ')}.)`
  if (/<script\b/i.test(html)) return `(${page} has no text to read: its HTML is markup and scripts only. It is likely built by JavaScript in a browser, which web_fetch does not run; look for the same content at another URL, such as an API, a feed, or a plain or printable version.)`
  return `(${page} has no text to read: its HTML is markup only.)`
}

