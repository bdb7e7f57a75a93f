import type { Context } from 'cordis'
import { untracked, type ToolDefinition } from 'dsh-core'
import type { ToolLspConfig } from './config.ts'
import { diagnosticsTool } from './diagnostics-tool.ts'
import { renameTool } from './rename-tool.ts'
import { callsTool } from './calls-tool.ts'
import type { LspToolServices } from './query.ts'
import { symbolsTool } from './symbols-tool.ts'

/**
 * `lsp_diagnostics` and `lsp_symbols` are listed only while some provider offers what they ask
 * for: a model must not be shown a tool no loaded provider can ever answer. (The `lsp` tool itself
 * stays listed without providers: its calls say LSP_UNAVAILABLE.) Re-evaluated whenever a
 * provider registers or goes; each change is announced once.
 */
export function registerCapabilityTools(ctx: Context, services: LspToolServices, settings: ToolLspConfig): void {
  const lsp = untracked(ctx.lsp)
  const tools: { readonly offered: () => boolean; readonly definition: ToolDefinition<any, any> }[] = [
    { offered: () => lsp.offers('diagnostics'), definition: diagnosticsTool(services, settings) },
    { offered: () => lsp.offers('documentSymbols') || lsp.offers('workspaceSymbols'), definition: symbolsTool(services, settings) },
    { offered: () => lsp.offers('rename'), definition: renameTool(services, settings) },
    { offered: () => lsp.offers('callHierarchy'), definition: callsTool(services, settings) },
  ]
  const registered = new Map<string, () => void>()
  const sync = () =>
    ctx.tools.batch(() => {
      for (const { offered, definition } of tools) {
        const dispose = registered.get(definition.name)
        if (offered() && !dispose) registered.set(definition.name, ctx.tools.register(definition))
        else if (!offered() && dispose) {
          registered.delete(definition.name)
          dispose()
        }
      }
    })
  sync()
  ctx.lsp.onChange(sync)
}
