import { MAX_TIMER_DELAY_MS } from 'dsh-core'
import { z } from 'zod'

/** Operator settings of the lsp tool; never visible to the model. */
export const ToolLspConfig = z.strictObject({
  /** Locations kept in the value (and shown); the rest are counted in `total` and marked `truncated`. */
  maxLocations: z.number().int().positive().default(100),
  /** Characters of text the model sees, and of hover contents kept in the value. */
  maxResultChars: z.number().int().positive().default(16_000),
  /** The tool's budget; the runtime turns an overrun into TOOL_TIMEOUT. */
  timeoutMs: z.number().int().min(1).max(MAX_TIMER_DELAY_MS).default(60_000),
  /** Characters of source line text shown per location; 0 turns line text (and its reads) off. */
  lineTextChars: z.number().int().nonnegative().default(200),
  /** Reading a file (for line text or to find a `symbol`) stops after this many bytes. */
  maxLineFileBytes: z.number().int().positive().default(2_000_000),
  /** Bytes the line-text reads of one call may take together (across all its files); later files get none. */
  lineTextBudgetBytes: z.number().int().positive().default(8_000_000),
  /** Lines above and below the named one searched when `symbol` is not on it; 0 searches that line only. */
  symbolSearchLines: z.number().int().min(0).max(1000).default(3),
})
export type ToolLspConfig = z.infer<typeof ToolLspConfig>

/** cordis calls this with the row's config; a throw marks the plugin's fork failed. */
export const Config = (config: unknown): ToolLspConfig => ToolLspConfig.parse(config ?? {})
