import { nestsTooDeep } from '../depth.ts'
import { htmlToMarkdown } from '../markdown.ts'

/** One conversion: what a worker is sent (structured-cloned), or what runs on the event loop. */
export type ConversionJob = HtmlJob

export interface HtmlJob {
  readonly kind: 'html'
  readonly html: string
  /** The page's final URL, for relative links. */
  readonly url: string
  readonly mainContent: boolean
}

/** The job's size in characters, which decides whether it is worth a worker hop. */
export function jobSize(job: ConversionJob): number {
  return job.html.length
}

/** Runs one job where it is called: in a worker (worker.ts), or on the event loop for small pages. */
export function runJob(job: ConversionJob): string {
  return convertHtml(job.html, job.url, job.mainContent)
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
