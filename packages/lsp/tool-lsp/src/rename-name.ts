import { LspError } from 'dsh-lsp'

/**
 * Characters no language's names hold: whitespace, control characters, brackets and separators (a
 * model writing `Shape.perimeter`, `perimeter()` or `foo bar` for a name). Only refused when the old
 * name lacks them, so a rename of what may hold them (a TypeScript module path `./shapes`, a quoted
 * property `'my key'`, C++'s `operator<`) still reaches the server. Keywords and other
 * language rules are the provider's: gopls and clangd check them, and lsp-stdio's `newNames` for
 * the servers that do not (tsserver, TypeScript 7, pyright).
 */
const NEVER_IN_A_NAME = /[\s\p{Cc}()[\]{}<>;,.:"]/u

/**
 * Throws LSP_RENAME_REFUSED when `newName` is the old name (an edit changing nothing) or holds a
 * character no name holds that the old name does not (an edit writing code that does not parse).
 * Checked before any preview or write: tsserver and pyright computed such edits without a word.
 */
export function checkNewName(oldName: string, newName: string): void {
  const refuse = (why: string) => new LspError(`newName ${JSON.stringify(newName)} ${why}; nothing was renamed`, 'LSP_RENAME_REFUSED')
  // An old name the provider could not read (a server without prepareRename, at no identifier): the server's to judge.
  if (!oldName) return
  if (newName === oldName) throw refuse('is the symbol\'s name already')
  for (const char of newName) {
    if (NEVER_IN_A_NAME.test(char) && !oldName.includes(char)) {
      throw refuse(`is not a name: it holds ${JSON.stringify(char)}, which ${JSON.stringify(oldName)} does not. Give the new name alone, as it is to be written at each use (no container, arguments or spaces)`)
    }
  }
}
