import { assertNever, readableText } from 'dsh-core'
import { flattenDeep, plainText } from '../depth.ts'
import { pageToMarkdown } from '../markdown.ts'
import { pdfToText } from '../pdf/extract.ts'
import type { FetchValue } from '../fetch.ts'
import type { ConversionJob, Converted } from './job.ts'

// The converter's code (the DOM walk, the cleaning, turndown's rules, the depth scan): loaded by the
// first conversion (converter.ts, conversion-child.ts), never by importing or registering the tools, so a
// host that lists them (`dsh tools`) does not read it (issue 27 item 5).

/** Runs one job where it is called: in a converter process (conversion-child.ts), or on the event loop (small pages, or no pool). */
export async function runJob(job: ConversionJob): Promise<Converted> {
  switch (job.kind) {
    case 'html':
      return convertHtml(job.html, job.url, job.mainContent, { maxElements: job.maxElements, maxChars: job.maxChars })
    case 'pdf':
      return { text: (await pdfToText(job.bytes, job.maxChars)).text }
    default:
      return assertNever(job, 'conversion job')
  }
}

/**
 * A page's Markdown (the tool takes control characters out of it when it builds its value, with
 * dsh-core's readableText). Nesting past 512 levels is
 * flattened first (the tags past it go, their text stays): the DOM walk and turndown recurse.
 * A page the converter throws on is read as its text, tags out, rather than handed on as markup.
 * `cut` only for a cut at `maxElements`: one at the output cap drops nothing the answer would show.
 */
export function convertHtml(html: string, url: string, mainContent: boolean, limits: { maxElements?: number; maxChars?: number } = {}): Converted {
  const page = flattenDeep(html)
  try {
    const { markdown, cut } = pageToMarkdown(page, { url, mainContent, ...limits })
    return cut?.reason === 'elements' ? { text: markdown, cut: true } : { text: markdown }
  } catch {
    return { text: plainText(page) }
  }
}

/**
 * A `web_fetch` value whose HTML body carries its Markdown, as `renderFetch` and `fetchMeta` need it:
 * the value itself when it does (every value the tool returns), else a copy with the whole page
 * converted here, on the event loop (a value stored without it, or made elsewhere). A frozen value's
 * copy is frozen too.
 */
export function withMarkdown(value: FetchValue): FetchValue {
  if (value.body.kind !== 'html' || value.markdown !== undefined) return value
  // Cleaned as the call cleans it (fetch.ts): a value stored by another version, or made by hand, may hold a page's raw U+202E.
  const converted = { ...value, markdown: readableText(convertHtml(value.body.content, value.url, false).text) }
  return Object.isFrozen(value) ? Object.freeze(converted) : converted
}
