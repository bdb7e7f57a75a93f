import { LspError } from 'dsh-lsp'
import type { LspPosition } from 'dsh-lsp'

/**
 * The LSP_RENAME_REFUSED errors of one rename, worded for what the model can change. A refusal of
 * `prepareRename` (or its null) is about the symbol: nothing there can be renamed. A refusal of
 * `rename` itself, once `prepareRename` accepted the symbol, is about the new name: gopls says
 * `invalid identifier to rename: "func"` or `renaming this func "Area" to "main" conflicts with func
 * in same block`, clangd `invalid name: the chosen name "return" is a keyword`; worded as about the
 * symbol, the model was told to pick another symbol when it had to pick another name.
 */
export class RenameRefusals {
  private readonly where: string

  constructor(
    private readonly serverId: string,
    position: LspPosition,
    private readonly newName: string,
  ) {
    this.where = `${position.line + 1}:${position.character + 1}`
  }

  /** The symbol at the position cannot be renamed, whatever the new name. */
  symbol(why: string, options?: ErrorOptions & { rpcCode?: number }): LspError {
    return new LspError(`${this.serverId}: the symbol at ${this.where} cannot be renamed: ${why}`, 'LSP_RENAME_REFUSED', options)
  }

  /**
   * The server refused `rename` to `newName`. `prepared`: the server accepted the symbol in
   * `prepareRename` first, so the reason is the new name (not an identifier, a keyword, a clash in
   * scope); without it the server's reason alone tells which.
   */
  renameTo(why: string, prepared: boolean, options?: ErrorOptions & { rpcCode?: number }): LspError {
    const advice = prepared
      ? `The symbol can be renamed (${this.serverId} accepted it first): change newName, to a valid identifier that is no keyword and that no other name in its scope has`
      : `If the reason is the new name (not a valid identifier, a keyword, a clash with another name in scope), change newName; if it is the symbol, no new name will do`
    return new LspError(`${this.serverId} refused to rename the symbol at ${this.where} to ${JSON.stringify(this.newName)}: ${why}. ${advice}. Nothing was renamed.`, 'LSP_RENAME_REFUSED', options)
  }

  /** A server error answer's own words (`invalid name: …`), without our `<server>: language server error <code>:` before them. */
  reasonOf(error: LspError): string {
    const prefix = `${this.serverId}: language server error ${error.rpcCode}: `
    const own = error.rpcCode !== undefined && error.message.startsWith(prefix) ? `${error.message.slice(prefix.length)} (language server error ${error.rpcCode})` : error.message
    // gopls puts a tab before `conflicts with …`, and a conflict's place on a line of its own.
    return own.replace(/[\t\r\n]+/g, ' ')
  }
}
