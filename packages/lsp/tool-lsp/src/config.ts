import { MAX_TIMER_DELAY_MS } from 'dsh-core'
import { LSP_DIAGNOSTIC_SEVERITIES } from 'dsh-lsp'
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
  /** lsp_diagnostics: items kept in the value (and shown); the rest are counted. */
  maxDiagnostics: z.number().int().positive().default(50),
  /** lsp_symbols: outline entries or workspace matches kept (and shown); the rest are counted. */
  maxSymbols: z.number().int().positive().default(200),
  /** lsp_symbols: outline levels kept (1 = top-level symbols only); deeper members are counted. */
  maxSymbolDepth: z.number().int().positive().max(64).default(3),
  /** lsp_symbols and lsp_calls: characters of a symbol's name (and container, detail) shown; the value keeps it whole. */
  maxNameChars: z.number().int().positive().default(200),
  /** lsp_rename; see rename-tool.ts. */
  rename: z
    .strictObject({
      /** Files one rename may touch; an edit over more is refused (LSP_RENAME_REFUSED). */
      maxFiles: z.number().int().positive().default(200),
      /** Bytes of each file read to check and apply the edit. */
      maxFileBytes: z.number().int().positive().default(4_000_000),
      /** Changed lines kept in the value (and shown); the rest are counted per file. */
      maxPreviewLines: z.number().int().positive().default(200),
      /** After applying: files whose diagnostics are asked for (the first ones of the edit); the rest are counted. */
      diagnosticsFiles: z.number().int().nonnegative().default(10),
      /**
       * Whether a rename may create, move and delete files when the server's edit says so (a module
       * renamed with its file). Off: such a rename is previewed but refused (LSP_RENAME_FILE_OPERATION).
       * On: done through ctx.fs with the text edits, all or nothing, every path proven inside the workspace.
       */
      allowFileOperations: z.boolean().default(false),
      /** Previews remembered, so that applying one refuses files changed since it was shown. */
      rememberedPreviews: z.number().int().nonnegative().default(32),
    })
    .prefault({}),
  /** lsp_calls; see calls-tool.ts. */
  calls: z
    .strictObject({
      /** Levels followed when the call gives no depth. */
      defaultDepth: z.number().int().positive().default(1),
      /** The deepest `depth` a call may ask for. */
      maxDepth: z.number().int().positive().max(16).default(4),
      /** Calls listed in all, over every level; past it the answer says it was cut. */
      maxCalls: z.number().int().positive().default(100),
    })
    .prefault({}),
  /** The automatic-diagnostics pre-step (opt-in); see auto-diagnostics.ts. */
  autoDiagnostics: z
    .strictObject({
      /** After files changed through `ctx.lsp.fileChanged` in a session, the next model step gets their new problems, once. */
      enabled: z.boolean().default(false),
      /** The least severe problem reported. */
      severity: z.enum(LSP_DIAGNOSTIC_SEVERITIES).default('error'),
      /** Changed files checked per step; the rest are named as not checked. */
      maxFiles: z.number().int().positive().default(10),
      /** Problems reported per step, over all files; the rest are counted. */
      maxItems: z.number().int().positive().default(20),
      /** The pre-step's budget for all its checks; a file not answered by then is reported as not checked. */
      timeoutMs: z.number().int().min(1).max(MAX_TIMER_DELAY_MS).default(15_000),
    })
    .prefault({}),
})
export type ToolLspConfig = z.infer<typeof ToolLspConfig>

/** cordis calls this with the row's config; a throw marks the plugin's fork failed. */
export const Config = (config: unknown): ToolLspConfig => ToolLspConfig.parse(config ?? {})
