import { createRequire } from 'node:module'
import type { Readability as ReadabilityClass } from '@mozilla/readability'
import { parseDocument, type HtmlDocument, type HtmlElement } from './document.ts'

/**
 * The page's main content (the article, without navigation, headers, footers and sidebars) as
 * Firefox Reader View finds it, or undefined when Readability finds none or fails on the page (the
 * whole page is then converted instead). Readability rewrites the document it reads, so it works
 * on its own copy of the page's markup.
 */
export function mainContent(document: HtmlDocument): HtmlElement | undefined {
  try {
    const copy = parseDocument(document.documentElement.outerHTML)
    // Readability types its argument as the browser's Document; linkedom's has what it uses.
    const article = new (readability())(copy as unknown as ConstructorParameters<typeof ReadabilityClass>[0], { keepClasses: true }).parse()
    return article?.content ? (parseDocument(article.content).body ?? undefined) : undefined
  } catch {
    return undefined
  }
}

const require = createRequire(import.meta.url)
let loaded: typeof ReadabilityClass | undefined

/** Loaded on the first main-content request, like linkedom (document.ts). */
function readability(): typeof ReadabilityClass {
  return (loaded ??= (require('@mozilla/readability') as { Readability: typeof ReadabilityClass }).Readability)
}
