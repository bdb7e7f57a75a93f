import { createRequire } from 'node:module'
import type * as Linkedom from 'linkedom'

/** The light DOM every step of the conversion works on (linkedom's). */
export type HtmlDocument = ReturnType<typeof Linkedom.parseHTML>['document']
export type HtmlElement = NonNullable<HtmlDocument['body']>

const HAS_ROOT = /<html[\s>]/i

/**
 * A document for a page or a fragment. linkedom builds its tree from the markup as written (it is
 * not an HTML5 tree builder), so a fragment without `<html>` is wrapped first, or its first
 * element would become the root.
 */
export function parseDocument(html: string): HtmlDocument {
  const { document } = domLibrary().parseHTML(HAS_ROOT.test(html) ? html : `<!doctype html><html><body>${html}</body></html>`)
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
