import type { Context } from 'cordis'
import { untracked } from 'dsh-core'
import { autoDiagnostics } from './auto-diagnostics.ts'
import { registerCapabilityTools } from './capability-tools.ts'
import { Config, ToolLspConfig } from './config.ts'
import { LSP_GUIDANCE, LSP_TOOL_DESCRIPTION } from './guidance.ts'
import { LspToolInput, quickLspInput } from './input.ts'
import { LspToolValue } from './output.ts'
import { queryLsp } from './query.ts'
import { renderValue } from './render.ts'

/**
 * dsh-tool-lsp: the model-facing `lsp` tool over `ctx.lsp`. It needs no provider to load: with
 * none registered the tool stays listed and calls fail with LSP_UNAVAILABLE. `lsp_diagnostics` and
 * `lsp_symbols` are listed while a provider offers their capabilities, and the automatic-diagnostics
 * pre-step (opt-in) needs the sessions service.
 */
export const name = 'tool-lsp'
export const inject = { tools: { required: true }, lsp: { required: true }, fs: { required: true }, sessions: { required: false } }
export { Config }
export type { ToolLspConfig } from './config.ts'
export type { LspToolInput } from './input.ts'
export type { LspToolValue } from './output.ts'
export { AUTO_DIAGNOSTICS_KIND } from './auto-diagnostics.ts'
export type { DiagnosticsInput } from './diagnostics-tool.ts'
export type { DiagnosticsValue } from './diagnostics-value.ts'
export type { SymbolsInput } from './symbols-tool.ts'
export type { SymbolsValue } from './symbols-value.ts'

export function apply(ctx: Context, config: ToolLspConfig): void {
  // cordis validates through Config; a direct apply() call gets the same checks and defaults.
  const settings = ToolLspConfig.parse(config ?? {})
  // Queries and reads register nothing, so they may skip cordis's per-call caller tracking.
  const services = { lsp: untracked(ctx.lsp), fs: untracked(ctx.fs) }
  ctx.tools.section({ name: 'tool:lsp', order: 112, text: LSP_GUIDANCE })
  ctx.tools.register({
    name: 'lsp',
    surface: 'lsp',
    description: LSP_TOOL_DESCRIPTION,
    input: LspToolInput,
    quickArgs: quickLspInput,
    output: LspToolValue,
    // queryLsp builds the value field by field from the provider's answer, which it has checked
    // (checkProviderResult); the runtime still proves it JSON. Checking it against LspToolValue
    // on every call re-proved the compiler's work (a third of the zod work per query).
    checkOutput: false,
    // The session reaches the query as exec.session (its workspace); nothing on the query path asks
    // currentSession(), so a host of queries never turns Node 20/22's async hooks on for it.
    ambientSession: false,
    timeoutMs: settings.timeoutMs,
    execute: (args, exec) => queryLsp(services, settings, args, exec),
    render: (args, value) => renderValue(args.operation, value, settings, args.filePath),
  })
  registerCapabilityTools(ctx, services, settings)
  autoDiagnostics(ctx, services, settings)
}
