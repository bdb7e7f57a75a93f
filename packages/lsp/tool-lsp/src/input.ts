import { LSP_OPERATIONS } from 'dsh-lsp'
import { z } from 'zod'

/**
 * The model-facing arguments. Validated by the tools runtime before `execute` runs, so a bad
 * operation, a blank path or a zero/fractional position is `INVALID_ARGS` and never reaches a server.
 */
export const LspToolInput = z.strictObject({
  operation: z
    .enum(LSP_OPERATIONS)
    .describe('goToDefinition, findReferences (includes the declaration), goToImplementation, or hover.'),
  filePath: z
    .string()
    .min(1)
    .regex(/\S/, 'filePath must not be blank')
    .describe('The source file holding the symbol, relative to the workspace or absolute.'),
  line: z.number().int().min(1).describe('One-based line of the symbol.'),
  character: z.number().int().min(1).describe('One-based column of the symbol, counted in UTF-16 code units.'),
})
export type LspToolInput = z.infer<typeof LspToolInput>
