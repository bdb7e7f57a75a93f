import type { HtmlDocument, HtmlElement } from './document.ts'

/** Elements whose content is never page text (a `<title>` out of `<head>` names the tab, as the one in it does). */
const DROPPED = 'script, style, noscript, template, iframe, object, embed, svg, canvas, head, title'
/** What a reader does not see: the `hidden` attribute, `aria-hidden="true"`, an inline `display: none` or `visibility: hidden`. */
const HIDDEN = '[hidden], [aria-hidden], [style]'
const DISPLAY_NONE = /(^|;)\s*display\s*:\s*none\s*(!important\s*)?(;|$)/i
const INVISIBLE = /(^|;)\s*visibility\s*:\s*(hidden|collapse)\s*(!important\s*)?(;|$)/i
/** Link targets a reader can follow; any other scheme (`javascript:`, `data:`, `vbscript:` …) is text, not a link. */
const FOLLOWABLE = new Set(['http:', 'https:', 'mailto:', 'ftp:'])
/** Image sources worth naming; a `data:` image (often kilobytes of base64) or a script URL is its alt text. */
const IMAGE_SOURCES = new Set(['http:', 'https:'])
/**
 * Longest link or image URL kept, in characters: web_fetch's default `maxUrlLength`, so a longer one
 * is not a URL the model could fetch. A page can make one megabytes long (a 4 MB `href` filled the
 * model's whole 200,000-character answer and took seconds to resolve); it keeps its text instead.
 */
export const MAX_LINK_URL_CHARS = 2048

/**
 * What the reader of the page would not see or could not follow is taken out, and what they could
 * follow is made absolute: script, style and other non-text elements and hidden elements go;
 * links and images point at absolute URLs resolved against the page's `<base>` and final URL; a
 * link with no text and no image is dropped (it would render as `[](…)`); a link to anything but a
 * web or mail address keeps its text and loses its target, and such an image becomes its alt text.
 */
export function cleanDocument(document: HtmlDocument, pageUrl: string | undefined): void {
  // Before <head> goes: it holds <base>.
  const base = baseUrl(document, pageUrl)
  for (const element of document.querySelectorAll(DROPPED)) element.remove()
  for (const element of document.querySelectorAll(HIDDEN)) {
    if (isHidden(element)) element.remove()
  }
  for (const link of document.querySelectorAll('a')) {
    if (!link.textContent?.trim() && !link.querySelector('img')) {
      link.remove()
      continue
    }
    if (tooLong(link, 'href')) {
      link.removeAttribute('href')
      continue
    }
    absolutize(link, 'href', base)
    if (!hasScheme(link.getAttribute('href'), base, FOLLOWABLE) || tooLong(link, 'href')) link.removeAttribute('href')
  }
  for (const image of document.querySelectorAll('img')) {
    if (!tooLong(image, 'src')) absolutize(image, 'src', base)
    if (!tooLong(image, 'src') && hasScheme(image.getAttribute('src'), base, IMAGE_SOURCES)) continue
    const alt = image.getAttribute('alt')?.trim()
    if (alt) image.replaceWith(document.createTextNode(alt))
    else image.remove()
  }
}

/**
 * Whether `value` is a URL with one of `schemes`. A relative value (no page URL to resolve it
 * against) is taken as a web address; the URL parser drops tabs and newlines, so `java\tscript:`
 * is `javascript:` here as in a browser.
 */
function hasScheme(value: string | null, base: URL | undefined, schemes: ReadonlySet<string>): boolean {
  if (value === null) return true
  const parsed = URL.parse(value.trim(), base?.href ?? 'https://relative.invalid/')
  return parsed !== null && schemes.has(parsed.protocol)
}

function isHidden(element: HtmlElement): boolean {
  if (element.hasAttribute('hidden')) return true
  if (element.getAttribute('aria-hidden')?.toLowerCase() === 'true') return true
  const style = element.getAttribute('style') ?? ''
  return DISPLAY_NONE.test(style) || INVISIBLE.test(style)
}

/** The page's `<base href>` resolved against its URL, else its URL; undefined when neither parses. */
function baseUrl(document: HtmlDocument, pageUrl: string | undefined): URL | undefined {
  const page = pageUrl === undefined ? undefined : URL.parse(pageUrl) ?? undefined
  const declared = document.querySelector('base[href]')?.getAttribute('href')
  return (declared ? URL.parse(declared, page?.href) : undefined) ?? page
}

/** Whether the attribute holds a URL longer than `MAX_LINK_URL_CHARS` (before or after absolutizing it). */
function tooLong(element: HtmlElement, attribute: 'href' | 'src'): boolean {
  return (element.getAttribute(attribute)?.length ?? 0) > MAX_LINK_URL_CHARS
}

function absolutize(element: HtmlElement, attribute: 'href' | 'src', base: URL | undefined): void {
  const value = element.getAttribute(attribute)
  if (!value || !base) return
  const resolved = URL.parse(value.trim(), base.href)
  if (resolved) element.setAttribute(attribute, resolved.href)
}
