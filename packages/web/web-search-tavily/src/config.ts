import { MAX_TIMER_DELAY_MS } from 'dsh-core'
import { z } from 'zod'

export const DEFAULT_BASE_URL = 'https://api.tavily.com'

/** The plugin config, validated when the row loads: a bad value fails the boot naming the field. */
export const TavilySearchConfig = z.strictObject({
  /** A literal key; wins over `apiKeyEnv` when set. Prefer the credential name. */
  apiKey: z.string().min(1).optional(),
  /** The credential resolved through ctx.credentials (environment, project .env, user .env) at every search. */
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must look like an environment variable name').default('TAVILY_API_KEY'),
  /** The API root; `/search` is resolved against it. */
  baseURL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default(DEFAULT_BASE_URL),
  /** Sent as `search_depth`: `basic` costs one credit, `advanced` two (better snippets, slower). */
  searchDepth: z.enum(['basic', 'advanced', 'fast', 'ultra-fast']).default('basic'),
  /** Sent as `topic`. */
  topic: z.enum(['general', 'news', 'finance']).default('general'),
  /** Sent as `include_answer`: Tavily's generated answer becomes the result's text (`basic` or `advanced`); off by default. */
  includeAnswer: z.union([z.literal(false), z.enum(['basic', 'advanced'])]).default(false),
  /** Sent as `time_range` (results published within it); omitted: no limit. */
  timeRange: z.enum(['day', 'week', 'month', 'year']).optional(),
  /** The provider's own deadline for one search; keep it well under the tool's budget so a failover list has time to move on. */
  timeoutMs: z.number().int().positive().max(MAX_TIMER_DELAY_MS).default(15_000),
  /** Largest response body read; a bigger one is WEB_PROVIDER_ERROR. */
  maxResponseBytes: z.number().int().positive().default(2_000_000),
  userAgent: z.string().min(1).default('dsh-web-search-tavily/0.1'),
})
export type TavilySearchConfig = z.infer<typeof TavilySearchConfig>
