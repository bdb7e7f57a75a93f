import { promised, type ToolDefinition } from 'dsh-core'
import { CallProofs, LSP_DIAGNOSTIC_SEVERITIES } from 'dsh-lsp'
import { z } from 'zod'
import { checkDiagnostics } from './capability-results.ts'
import type { ToolLspConfig } from './config.ts'
import { renderDiagnostics } from './diagnostics-render.ts'
import { serverTimedOut } from './timeout-hint.ts'
import { DiagnosticsValue, diagnosticsValue } from './diagnostics-value.ts'
import { filePathField, isPlainFilePath } from './input.ts'
import { sessionWorkspace, type LspToolServices } from './query.ts'

export const DiagnosticsInput = z.strictObject({
  filePath: filePathField('The source file to check, relative to the workspace or absolute.'),
  severity: z
    .enum(LSP_DIAGNOSTIC_SEVERITIES)
    .optional()
    .describe('The least severe problem to list: error, warning (the default), information or hint.'),
})
export type DiagnosticsInput = z.infer<typeof DiagnosticsInput>

const SEVERITIES: ReadonlySet<unknown> = new Set(LSP_DIAGNOSTIC_SEVERITIES)

/**
 * `DiagnosticsInput` without zod for a call it certainly accepts (the runtime's `quickArgs`): the
 * frozen arguments as they are. Anything else, valid or not, is left to the schema, which words the
 * error. A writer asks this tool after every edit.
 */
export function quickDiagnosticsInput(args: unknown): DiagnosticsInput | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined
  const record = args as Record<string, unknown>
  for (const key in record) if (key !== 'filePath' && key !== 'severity') return undefined
  const { filePath, severity } = record
  if (!isPlainFilePath(filePath)) return undefined
  if ('severity' in record && !SEVERITIES.has(severity)) return undefined
  return record as DiagnosticsInput
}

export const DIAGNOSTICS_TOOL_DESCRIPTION = [
  'The errors and warnings the language server reports for one file as it is on disk now: type errors, unresolved names, syntax errors.',
  'Use it after editing a file, to see what the change broke (also in files that use it), instead of running a build.',
  'Positions are one-based path:line:column with the source line.',
].join(' ')

/** The `lsp_diagnostics` tool: one file's problems, at or above a severity floor. */
export function diagnosticsTool(services: LspToolServices, settings: ToolLspConfig): ToolDefinition<DiagnosticsInput, DiagnosticsValue> {
  return {
    name: 'lsp_diagnostics',
    surface: 'lsp',
    description: DIAGNOSTICS_TOOL_DESCRIPTION,
    input: DiagnosticsInput,
    quickArgs: quickDiagnosticsInput,
    output: DiagnosticsValue,
    // Built field by field from the checked provider answer (checkDiagnostics), as `lsp`'s value.
    checkOutput: false,
    // The session reaches the call as exec.session (its workspace); nothing on its path asks
    // currentSession(), so a writer asking after every edit never turns Node 20/22's async hooks
    // on for the whole process (each promise after that pays a hook call), as the `lsp` tool.
    ambientSession: false,
    timeoutMs: settings.timeoutMs,
    // Not an async function, and the value built where the provider's answer settles: one promise
    // per warm call instead of an async body's and an await's for the call and for the value.
    execute: (args, exec) =>
      promised(() => {
        const cwd = sessionWorkspace(exec, 'lsp_diagnostics')
        const proofs = new CallProofs(services.fs, cwd)
        // The call's lifetime itself, not its signal (as the `lsp` tool's query): the provider's
        // provider follows it, and no AbortController is made for a call nobody aborts.
        return services.lsp
          .diagnostics({ filePath: args.filePath, workspaceRoot: cwd, proofs }, exec.lifetime)
          .then(
            (answer) => diagnosticsValue(proofs, settings, checkDiagnostics(answer), args.severity ?? 'warning', exec.lifetime),
            (error: unknown) => {
              // The budget ran out while the server worked: what it had not answered, and what to do.
              throw exec.lifetime.expired ? serverTimedOut(`the diagnostics of ${args.filePath}`, settings.timeoutMs, error) : error
            },
          )
      }),
    render: (_args, value) => renderDiagnostics(value, settings),
  }
}
