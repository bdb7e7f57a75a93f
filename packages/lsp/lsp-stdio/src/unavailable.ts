import type { CapabilityStatus } from 'dsh-core'
import { LspError, type LspCallHierarchyResult, type LspRenameResult, type LspDiagnosticsResult, type LspDocumentSymbolsResult, type LspProvider, type LspQueryResult, type LspWorkspaceSymbolsResult } from 'dsh-lsp'
import { withRoutes } from './status.ts'

/**
 * A configured server whose executable was not found at load. The row stays: its extensions and
 * file names are still claimed (so they do not fall through to another provider), `dsh status`
 * shows it `unavailable` with the reason, and queries fail with LSP_UNAVAILABLE. Installing the
 * server takes effect on the next load.
 */
export class UnavailableLspProvider implements LspProvider {
  readonly extensionToLanguage: Readonly<Record<string, string>>
  readonly filenameToLanguage: Readonly<Record<string, string>>

  constructor(
    readonly id: string,
    routes: Pick<LspProvider, 'extensionToLanguage' | 'filenameToLanguage'>,
    private readonly reason: string,
  ) {
    this.extensionToLanguage = { ...routes.extensionToLanguage }
    this.filenameToLanguage = { ...routes.filenameToLanguage }
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

  rename(): Promise<LspRenameResult> {
    return this.refuse()
  }

  callHierarchy(): Promise<LspCallHierarchyResult> {
    return this.refuse()
  }

  private refuse(): Promise<never> {
    return Promise.reject(new LspError(`${this.id}: the language server is unavailable: ${this.reason}`, 'LSP_UNAVAILABLE'))
  }

  status(): CapabilityStatus {
    return withRoutes({ state: 'unavailable', detail: this.reason }, this)
  }

  probe(): Promise<CapabilityStatus> {
    return Promise.resolve(this.status())
  }

  disposeAll(): Promise<void> {
    return Promise.resolve()
  }
}
