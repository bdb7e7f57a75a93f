import { assertNever } from 'dsh-core'
import { nestsTooDeep } from '../depth.ts'
import { htmlToMarkdown } from '../markdown.ts'
import { pdfToText } from '../pdf/extract.ts'
import type { FetchValue } from '../fetch.ts'
import type { ConversionJob } from './job.ts'

// The converter's code (the DOM walk, the cleaning, turndown's rules, the depth scan): loaded by the
// first conversion (converter.ts, conversion-child.ts), never by importing or registering the tools, so a
// host that lists them (`dsh tools`) does not read it (issue 27 item 5).

/** Runs one job where it is called: in a converter process (conversion-child.ts), or on the event loop (small pages, or no pool). */
export async function runJob(job: ConversionJob): Promise<string> {
  switch (job.kind) {
    case 'html':
      return convertHtml(job.html, job.url, job.mainContent)
    case 'pdf':
      return (await pdfToText(job.bytes, job.maxChars)).text
    default:
      return assertNever(job, 'conversion job')
  }
}

export function convertHtml(html: string, url: string, mainContent: boolean): string {
  // Too deep to walk safely, or a converter failure: the raw page is better than an error.
  if (nestsTooDeep(html)) return html
  try {
    return htmlToMarkdown(html, { url, mainContent })
  } catch {
    return html
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
  const converted = { ...value, markdown: convertHtml(value.body.content, value.url, false) }
  return Object.isFrozen(value) ? Object.freeze(converted) : converted
}
