import type { ToolDefinition } from 'dsh-core'
import { z } from 'zod'
import { checkOutline, checkWorkspaceAnswer } from './capability-results.ts'
import { filePathField } from './input.ts'
import type { ToolLspConfig } from './config.ts'
import { sessionWorkspace, type LspToolServices } from './query.ts'
import { withTimeoutHint } from './timeout-hint.ts'
import { renderSymbols } from './symbols-render.ts'
import { outlineValue, SymbolsValue, workspaceMatchesValue } from './symbols-value.ts'

export const SymbolsInput = z
  .strictObject({
    filePath: filePathField('A source file to outline (its classes, functions and their members), relative to the workspace or absolute.').optional(),
    query: z
      .string()
      .min(1)
      .max(200)
      .regex(/\S/, 'query must not be blank')
      .optional()
      // tsserver (TypeScript 5) matches a lowercase query only where a word of the name starts
      // (`sum` finds areaSum, `um` nothing); TypeScript 7, gopls and clangd match letters anywhere.
      // A word start is what every server finds.
      .describe('Instead of filePath: a symbol name, or the start of one, to find across the workspace. Begin the query where a word of the name begins ("area" or "sum" for areaSum, not "um"): some servers match only there.'),
  })
  .superRefine((args, ctx) => {
    if ((args.filePath === undefined) === (args.query === undefined)) ctx.addIssue({ code: 'custom', path: [], message: 'give exactly one of filePath (an outline) and query (a workspace search)' })
  })
export type SymbolsInput = z.infer<typeof SymbolsInput>

export const SYMBOLS_TOOL_DESCRIPTION = [
  "A file's outline (filePath: its classes, functions, methods and properties, nested, with their one-based line:column) or a workspace search for a symbol by name (query).",
  'Use it to see what a file declares without reading it whole, or to find where a class or function is defined.',
  'The positions point at each name: pass them to the lsp tool for definitions, references or hover.',
].join(' ')

/** The `lsp_symbols` tool: an outline of one file, or a name search across the workspace. */
export function symbolsTool(services: LspToolServices, settings: ToolLspConfig): ToolDefinition<SymbolsInput, SymbolsValue> {
  return {
    name: 'lsp_symbols',
    surface: 'lsp',
    description: SYMBOLS_TOOL_DESCRIPTION,
    input: SymbolsInput,
    output: SymbolsValue,
    // The workspace comes from exec.session; nothing on either path asks currentSession() (as the
    // lsp tool): a call never turns Node 20/22's async hooks on for the whole host.
    ambientSession: false,
    timeoutMs: settings.timeoutMs,
    async execute(args, exec) {
      const cwd = sessionWorkspace(exec, 'lsp_symbols')
      if (args.filePath !== undefined) {
        // The call's lifetime itself, not its signal: the provider follows it and makes no lifetime of its own for it.
        const asking = services.lsp.documentSymbols({ filePath: args.filePath, workspaceRoot: cwd }, exec.lifetime)
        return outlineValue(settings, checkOutline(await withTimeoutHint(asking, exec, settings, () => `the outline of ${args.filePath}`)))
      }
      const query = args.query!
      const answer = checkWorkspaceAnswer(await services.lsp.workspaceSymbols({ query, workspaceRoot: cwd }, exec.signal))
      return workspaceMatchesValue(services.fs, settings, query, answer, cwd, exec.signal)
    },
    render: (_args, value) => renderSymbols(value, settings),
  }
}
