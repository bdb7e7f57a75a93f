import { MAX_TIMER_DELAY_MS } from 'dsh-core'
import { z } from 'zod'

export const DEFAULT_BASE_URL = 'https://api.search.brave.com/res/v1'

/** The plugin config, validated when the row loads: a bad value fails the boot naming the field. */
export const BraveSearchConfig = z.strictObject({
  /** A literal key; wins over `apiKeyEnv` when set. Prefer the credential name. */
  apiKey: z.string().min(1).optional(),
  /** The credential resolved through ctx.credentials (environment, project .env, user .env) at every search. */
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must look like an environment variable name').default('BRAVE_API_KEY'),
  /** The API root; `/web/search` is resolved against it. */
  baseURL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default(DEFAULT_BASE_URL),
  /** Sent as `country` (two letters, e.g. `DE`); omitted: the API's default (US). */
  country: z.string().regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code').optional(),
  /** Sent as `search_lang` (`en`, `de`, `zh-hans`); omitted: the API's default. */
  searchLang: z.string().trim().min(2).optional(),
  /** Sent as `safesearch`; omitted: the API's default (moderate). */
  safesearch: z.enum(['off', 'moderate', 'strict']).optional(),
  /** The provider's own deadline for one search; keep it well under the tool's budget so a failover list has time to move on. */
  timeoutMs: z.number().int().positive().max(MAX_TIMER_DELAY_MS).default(10_000),
  /** Largest response body read; a bigger one is WEB_PROVIDER_ERROR. */
  maxResponseBytes: z.number().int().positive().default(2_000_000),
  userAgent: z.string().min(1).default('dsh-web-search-brave/0.1'),
})
export type BraveSearchConfig = z.infer<typeof BraveSearchConfig>
