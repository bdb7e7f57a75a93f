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
 * ECMAScript's reserved words, strict mode's and a module's (`await`) included: TypeScript files and
 * classes are strict. Only a property name may be one (`obj.class`, `{ delete() {} }`); a variable,
 * function, class, parameter or import may not (`const class = 1` does not parse).
 */
const ECMASCRIPT_RESERVED = new Set([
  'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum', 'export', 'extends', 'false', 'finally',
  'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var',
  'void', 'while', 'with', 'implements', 'interface', 'let', 'package', 'private', 'protected', 'public', 'static', 'yield', 'await',
])

/**
 * What the servers' hover says a member is, at its start: `(property) Circle.radius: number`,
 * `(method) Shape.area(): number`, `(enum member) E.one = 0` (tsserver and TypeScript 7 alike).
 */
const ECMASCRIPT_MEMBER = /^\((?:property|method|getter|setter|accessor|enum member)\)/

/** Whether checking `newName` under `rule` needs what the server says the symbol is (its hover): an ECMAScript reserved word does. */
export function describesSymbol(rule: NewNameRule | undefined, newName: string): boolean {
  return rule === 'ecmascript' && ECMASCRIPT_RESERVED.has(newName)
}

/**
 * LSP_RENAME_REFUSED when an identifier would be renamed to what is no identifier of the language:
 * tsserver (through typescript-language-server), TypeScript 7's server and pyright computed such
 * edits (`const 1abc = 1`, `def class(`, `function delete(`) and `apply` wrote them. Only an old
 * name that is an identifier is checked: a module path or a quoted key keeps the server's
 * judgement. An ECMAScript reserved word is refused unless `display` (the server's hover at the
 * position, see `describesSymbol`) says the symbol is a property, method or enum member, the names
 * one may be; Python's keywords always are, since no Python name may be one.
 */
export function checkNewNameFor(rule: NewNameRule, serverId: string, oldName: string, newName: string, display?: string): void {
  const refuse = (why: string) =>
    new LspError(`${serverId}: newName ${JSON.stringify(newName)} ${why}: change newName. Nothing was renamed.`, 'LSP_RENAME_REFUSED')
  switch (rule) {
    case 'ecmascript':
      if (!ECMASCRIPT_IDENTIFIER.test(oldName)) return
      if (!ECMASCRIPT_IDENTIFIER.test(newName)) {
        throw refuse('is not an identifier in TypeScript or JavaScript (a letter, "_" or "$" first, then letters, digits, "_" or "$")')
      }
      if (ECMASCRIPT_RESERVED.has(newName) && !(display && ECMASCRIPT_MEMBER.test(display))) {
        const what = display ? `the symbol is not one (${JSON.stringify(display)})` : 'the server did not say the symbol is one'
        throw refuse(`is a reserved word in TypeScript and JavaScript, which only a property, method or enum member may be named, and ${what}`)
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
