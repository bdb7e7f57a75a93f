import { z } from 'zod'

/** Node's timers overflow past this; a larger value would fire at once. */
const MAX_TIMER_MS = 2_147_483_647

const Milliseconds = z.number().int().positive().max(MAX_TIMER_MS)

/** The plugin config, validated when the row loads: a bad value fails the boot naming the field. */
export const SearxngConfig = z.strictObject({
  /** The instance's root, e.g. `http://127.0.0.1:8888`; `/search` and `/config` are resolved against it. */
  baseUrl: z.url({ protocol: /^https?$/, error: 'must be the http(s) URL of a SearXNG instance, e.g. http://127.0.0.1:8888' }),
  /** The provider's own deadline for one search (request and body); a shorter caller budget wins. */
  timeoutMs: Milliseconds.default(10_000),
  /** Largest response body read; a bigger one is WEB_PROVIDER_ERROR. */
  maxResponseBytes: z.number().int().positive().default(2_000_000),
  /** Sent as `language` (`en`, `de-CH`, `all`); omitted: the instance's default. */
  language: z.string().trim().min(1).optional(),
  /** Sent as `categories` (comma-joined), e.g. `[general, it]`; omitted: the instance's default. */
  categories: z.array(z.string().trim().min(1)).min(1).optional(),
  /** Sent as `safesearch`: 0 off, 1 moderate, 2 strict; omitted: the instance's default. */
  safesearch: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
  userAgent: z.string().min(1).default('dsh-example-searxng/0.1'),
})
export type SearxngConfig = z.infer<typeof SearxngConfig>
