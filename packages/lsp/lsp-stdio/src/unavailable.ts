import type { CapabilityStatus } from 'dsh-core'
import { LspError, type LspProvider, type LspQueryResult } from 'dsh-lsp'
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
