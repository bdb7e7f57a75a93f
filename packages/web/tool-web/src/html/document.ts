import { createRequire } from 'node:module'
import type * as Linkedom from 'linkedom'

/** The light DOM every step of the conversion works on (linkedom's). */
export type HtmlDocument = ReturnType<typeof Linkedom.parseHTML>['document']
export type HtmlElement = NonNullable<HtmlDocument['body']>

const HAS_ROOT = /<html[\s>]/i
const END_OF_DOCUMENT = /<\/(?:body|html)\s*>/gi

/**
 * A document for a page or a fragment. linkedom builds its tree from the markup as written (it is
 * not an HTML5 tree builder), so a fragment without `<html>` is wrapped first, or its first
 * element would become the root; and `</body>` and `</html>` are dropped, because a browser puts
 * whatever follows them into the body while linkedom would leave it out of the document.
 */
export function parseDocument(html: string): HtmlDocument {
  const markup = html.replace(END_OF_DOCUMENT, '')
  const { document } = domLibrary().parseHTML(HAS_ROOT.test(markup) ? markup : `<!doctype html><html><body>${markup}</body></html>`)
  return document
}

const require = createRequire(import.meta.url)
let linkedom: typeof Linkedom | undefined

/**
 * linkedom, loaded on the first conversion: it takes a few hundred milliseconds to load, which
 * every `dsh` start would pay otherwise, fetching or not.
 */
function domLibrary(): typeof Linkedom {
  return (linkedom ??= require('linkedom') as typeof Linkedom)
}
