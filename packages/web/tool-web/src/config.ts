import { configParser, MAX_TIMER_DELAY_MS } from 'dsh-core'
import { z } from 'zod'

const positive = (key: string, fallback: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .number({ error: `tool-web: ${key} must be a positive integer` })
    .int(`tool-web: ${key} must be a positive integer`)
    .positive(`tool-web: ${key} must be a positive integer`)
    .max(max, `tool-web: ${key} must be no greater than ${max}`)
    .default(fallback)

/** Operator settings of the web tools; never visible to the model except through the text they shape. */
export const ToolWebConfig = z.strictObject({
  /** Register `web_search`. Registration never depends on provider health. */
  search: z.boolean().default(true),
  /** Register `web_fetch`; also picks the search guidance (with or without a fetch follow-up). */
  fetch: z.boolean().default(true),
  /** Sent as `maxResults` on every search, and caps the merged multi-query list. */
  searchMaxResults: positive('searchMaxResults', 8),
  /** Most entries accepted in `queries`. */
  searchMaxQueries: positive('searchMaxQueries', 4),
  /** Longest query accepted, in characters; a longer one is INVALID_ARGS before anything is sent. */
  searchMaxQueryChars: positive('searchMaxQueryChars', 1_000),
  /** Cap on the whole rendered `web_search` text (answers, source lines, notes), with a truncation note. */
  searchMaxOutputChars: positive('searchMaxOutputChars', 40_000),
  /** `web_search`'s budget; the runtime turns an overrun into TOOL_TIMEOUT. */
  searchTimeoutMs: positive('searchTimeoutMs', 30_000, MAX_TIMER_DELAY_MS),
  /** `web_fetch`'s budget. */
  fetchTimeoutMs: positive('fetchTimeoutMs', 30_000, MAX_TIMER_DELAY_MS),
  /** Whether `web_fetch` returns only a page's main content when the call does not say (`mainContent`). */
  fetchMainContent: z.boolean().default(false),
  /** How long a `web_fetch` answer is reused for the same URL (and conversion); 0 turns the cache off. */
  cacheTtlMs: z.number({ error: 'tool-web: cacheTtlMs must be a non-negative integer' }).int('tool-web: cacheTtlMs must be a non-negative integer').nonnegative('tool-web: cacheTtlMs must be a non-negative integer').default(900_000),
  /** Memory the cached answers may take, in bytes (least recently used out first). */
  cacheMaxBytes: positive('cacheMaxBytes', 50_000_000),
  /** The cap on the whole rendered `web_fetch` text; a page is converted only until its Markdown is sure to pass it. */
  fetchMaxOutputChars: positive('fetchMaxOutputChars', 200_000),
  /**
   * Most elements of a page converted (after cleaning and main-content extraction): turndown costs
   * ~80–100 µs per element, so a flood of elements would outlast the call's budget. The default
   * converts long documentation whole (a 2.4 MB Rust std page has 37 500); a cut page says so.
   */
  fetchMaxElements: positive('fetchMaxElements', 50_000),
  /**
   * Converter processes that convert pages off the event loop and out of the host's heap (started on
   * demand, kept while the plugin is loaded); conversions beyond them wait their turn. 0: every page
   * converts on the event loop. (The name is from the worker-thread pool it counted before issue 27.)
   */
  conversionWorkers: z.number({ error: 'tool-web: conversionWorkers must be an integer from 0 to 16' }).int('tool-web: conversionWorkers must be an integer from 0 to 16').min(0, 'tool-web: conversionWorkers must be an integer from 0 to 16').max(16, 'tool-web: conversionWorkers must be an integer from 0 to 16').default(2),
  /** Pages shorter than this (characters of HTML) convert on the event loop: a hop to a converter process costs more than they do. */
  conversionWorkerMinChars: z.number({ error: 'tool-web: conversionWorkerMinChars must be a non-negative integer' }).int('tool-web: conversionWorkerMinChars must be a non-negative integer').nonnegative('tool-web: conversionWorkerMinChars must be a non-negative integer').default(8_192),
  /** Memory one converter process may take (`--max-old-space-size`, MB); a page that needs more is WEB_CONVERSION_FAILED, and only that process dies. */
  conversionMaxMemoryMb: positive('conversionMaxMemoryMb', 1_024, 65_536),
})
export type ToolWebConfig = z.infer<typeof ToolWebConfig>

/** cordis calls this with the row's config; a throw marks the plugin's fork failed. */
export const Config: (config: unknown) => ToolWebConfig = configParser(ToolWebConfig)
