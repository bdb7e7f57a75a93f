import { MAX_TIMER_DELAY_MS } from 'dsh-core'
import { z } from 'zod'

const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })

export const DEFAULT_BASE_URL = 'https://api.deepseek.com/anthropic/v1'
/** Overrides the endpoint when config has no `baseURL`; the chat adapter's DEEPSEEK_BASE_URL is deliberately not used. */
export const BASE_URL_ENV = 'DEEPSEEK_SEARCH_BASE_URL'

export const DeepSeekSearchConfig = z.strictObject({
  /** A literal key; wins over `apiKeyEnv` when set. Prefer the credential name. */
  apiKey: z.string().min(1).optional(),
  /** The credential resolved through ctx.credentials (environment, project .env, user .env) on every search. */
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must look like an environment variable name').default('DEEPSEEK_API_KEY'),
  /** The Anthropic-compatible API root; `/messages` is appended. Else DEEPSEEK_SEARCH_BASE_URL, else DeepSeek's. */
  baseURL: HttpUrl.optional(),
  model: z.string().min(1).default('deepseek-v4-flash'),
  /** Sent as `anthropic-version`. */
  apiVersion: z.string().min(1).default('2023-06-01'),
  maxTokens: z.number().int().min(1).default(4096),
  /** Native searches the model may run per query (each is billed). */
  maxUses: z.number().int().min(1).default(5),
  /** The provider's own deadline for one search (credential, request and body), for callers without a shorter one. */
  timeoutMs: z.number().int().positive().max(MAX_TIMER_DELAY_MS).default(90_000),
  /** Largest response body read; a bigger one is WEB_PROVIDER_ERROR. */
  maxResponseBytes: z.number().int().positive().default(4_000_000),
  userAgent: z.string().min(1).default('dsh-web-search-deepseek/0.1'),
})
export type DeepSeekSearchConfig = z.infer<typeof DeepSeekSearchConfig>

/** What one search uses, taken once at its start so the key and the endpoint it goes to agree. */
export interface SearchOptions extends Omit<DeepSeekSearchConfig, 'baseURL'> {
  readonly baseURL: string
}

export function snapshot(config: DeepSeekSearchConfig, env: NodeJS.ProcessEnv = process.env): SearchOptions {
  return { ...config, baseURL: config.baseURL ?? (env[BASE_URL_ENV] || DEFAULT_BASE_URL) }
}
