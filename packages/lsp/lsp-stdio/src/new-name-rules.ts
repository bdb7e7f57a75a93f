import { assertNever } from 'dsh-core'
import { LspError } from 'dsh-lsp'

/** The languages whose names a server row can check a rename's new name against (its `newNames`). */
export const NEW_NAME_RULES = ['ecmascript', 'python'] as const
export type NewNameRule = (typeof NEW_NAME_RULES)[number]

// Linear: one pass over a name of at most 200 characters (the tool's bound), no nested quantifier.
const ECMASCRIPT_IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u
const PYTHON_IDENTIFIER = /^[\p{ID_Start}_][\p{ID_Continue}]*$/u
/** Python's hard keywords: never a name, an attribute's included (`obj.class` does not parse). */
const PYTHON_KEYWORDS = new Set(['False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield'])

/**
 * LSP_RENAME_REFUSED when an identifier would be renamed to what is no identifier of the language:
 * tsserver (through typescript-language-server), TypeScript 7's server and pyright computed such
 * edits (`const 1abc = 1`, `def class(`) and `apply` wrote them. Only an old name that is an
 * identifier is checked: a module path or a quoted key keeps the server's judgement. ECMAScript
 * keywords are not refused: a property may be named `class`, and the edit cannot tell a property
 * from a variable; Python's are, since no Python name may be one.
 */
export function checkNewNameFor(rule: NewNameRule, serverId: string, oldName: string, newName: string): void {
  const refuse = (why: string) =>
    new LspError(`${serverId}: newName ${JSON.stringify(newName)} ${why}: change newName. Nothing was renamed.`, 'LSP_RENAME_REFUSED')
  switch (rule) {
    case 'ecmascript':
      if (ECMASCRIPT_IDENTIFIER.test(oldName) && !ECMASCRIPT_IDENTIFIER.test(newName)) {
        throw refuse('is not an identifier in TypeScript or JavaScript (a letter, "_" or "$" first, then letters, digits, "_" or "$")')
      }
      return
    case 'python':
      if (!PYTHON_IDENTIFIER.test(oldName) || PYTHON_KEYWORDS.has(oldName)) return
      if (!PYTHON_IDENTIFIER.test(newName)) throw refuse('is not a Python identifier (a letter or "_" first, then letters, digits or "_")')
      if (PYTHON_KEYWORDS.has(newName)) throw refuse('is a Python keyword, which no name may be')
      return
    default:
      return assertNever(rule, 'new-name rule')
  }
}
