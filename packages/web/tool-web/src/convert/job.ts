import { assertNever } from 'dsh-core'
import { nestsTooDeep } from '../depth.ts'
import { htmlToMarkdown } from '../markdown.ts'
import { pdfToText } from '../pdf/extract.ts'

/** One conversion: what a worker is sent (structured-cloned), or what runs on the event loop. */
export type ConversionJob = HtmlJob | PdfJob

export interface HtmlJob {
  readonly kind: 'html'
  readonly html: string
  /** The page's final URL, for relative links. */
  readonly url: string
  readonly mainContent: boolean
}

export interface PdfJob {
  readonly kind: 'pdf'
  readonly bytes: Uint8Array
  /** Pages are read until the text passes this many characters (the output cap): the rest would be cut anyway. */
  readonly maxChars: number
}

/** The job's size in characters, which decides whether it is worth a worker hop: a PDF always is (pdf.js is a large module and its parse is not bounded by size alone). */
export function jobSize(job: ConversionJob): number {
  switch (job.kind) {
    case 'html':
      return job.html.length
    case 'pdf':
      return Number.POSITIVE_INFINITY
    default:
      return assertNever(job, 'conversion job')
  }
}

/** Runs one job where it is called: in a worker (worker.ts), or on the event loop (small pages, or no pool). */
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
