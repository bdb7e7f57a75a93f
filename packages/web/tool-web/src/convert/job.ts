import { assertNever } from 'dsh-core'

/** One conversion: what a converter process is sent (v8-serialized over IPC), or what runs on the event loop. */
export type ConversionJob = HtmlJob | PdfJob

export interface HtmlJob {
  readonly kind: 'html'
  readonly html: string
  /** The page's final URL, for relative links. */
  readonly url: string
  readonly mainContent: boolean
  /** Most elements converted (`fetchMaxElements`); past them the page is cut and its Markdown says so. */
  readonly maxElements: number
  /** The output cap: the page is converted only until its Markdown is sure to pass it (html/cut.ts). */
  readonly maxChars: number
}

export interface PdfJob {
  readonly kind: 'pdf'
  readonly bytes: Uint8Array
  /** Pages are read until the text passes this many characters (the output cap): the rest would be cut anyway. */
  readonly maxChars: number
}

/** What a conversion gives: the text, and `cut` when part of the page was not converted (the answer is then truncated). */
export interface Converted {
  readonly text: string
  readonly cut?: true
}

/** The job's size in characters, which decides whether it is worth a hop to a converter: a PDF always is (pdf.js is a large module and its parse is not bounded by size alone). */
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
