import { createRequire } from 'node:module'
import type { Readability as ReadabilityClass } from '@mozilla/readability'
import type { HtmlDocument, HtmlElement } from './document.ts'

/**
 * The page's main content (the article, without navigation, headers, footers and sidebars) as
 * Firefox Reader View finds it, or undefined when Readability finds none or fails on the page.
 * Readability rewrites the document it reads: when this returns undefined, `document` is no longer
 * the page (the caller parses it again for the whole page). The article is handed back as the
 * element Readability built, not serialized and parsed again: on a page of megabytes each parse
 * costs seconds.
 */
export function mainContent(document: HtmlDocument): HtmlElement | undefined {
  try {
    // Readability types its argument as the browser's Document; linkedom's has what it uses.
    const reader = new (readability())(document as unknown as ConstructorParameters<typeof ReadabilityClass>[0], { keepClasses: true, serializer: (element) => element })
    const article = reader.parse() as { content?: unknown } | null
    const element = article?.content as HtmlElement | undefined | null
    return element && element.textContent?.trim() ? element : undefined
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
