import type { CapabilityStatus } from 'dsh-core'
import { LspError, type LspDiagnosticsResult, type LspDocumentSymbolsResult, type LspProvider, type LspQueryResult, type LspWorkspaceSymbolsResult } from 'dsh-lsp'
import { withExtensions } from './status.ts'

/**
 * A configured server whose executable was not found at load. The row stays: its extensions are
 * still claimed (so they do not fall through to another provider), `dsh status` shows it
 * `unavailable` with the reason, and queries fail with LSP_UNAVAILABLE. Installing the server
 * takes effect on the next load.
 */
export class UnavailableLspProvider implements LspProvider {
  readonly extensionToLanguage: Readonly<Record<string, string>>

  constructor(
    readonly id: string,
    extensionToLanguage: Readonly<Record<string, string>>,
    private readonly reason: string,
  ) {
    this.extensionToLanguage = { ...extensionToLanguage }
  }

  query(): Promise<LspQueryResult> {
    return this.refuse()
  }

  /** It offers what its server would, so the caller learns what to install rather than that nothing offers it. */
  diagnostics(): Promise<LspDiagnosticsResult> {
    return this.refuse()
  }

  documentSymbols(): Promise<LspDocumentSymbolsResult> {
    return this.refuse()
  }

  workspaceSymbols(): Promise<LspWorkspaceSymbolsResult> {
    return this.refuse()
  }

  private refuse(): Promise<never> {
    return Promise.reject(new LspError(`${this.id}: the language server is unavailable: ${this.reason}`, 'LSP_UNAVAILABLE'))
  }

  status(): CapabilityStatus {
    return withExtensions({ state: 'unavailable', detail: this.reason }, this.extensionToLanguage)
  }

  probe(): Promise<CapabilityStatus> {
    return Promise.resolve(this.status())
  }

  disposeAll(): Promise<void> {
    return Promise.resolve()
  }
}
