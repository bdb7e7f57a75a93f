/** The tool description the model reads in the catalog. */
export const LSP_TOOL_DESCRIPTION = [
  'Ask the language server for exact code navigation at one symbol.',
  'Operations: goToDefinition (where the symbol is defined), findReferences (every use, the declaration included),',
  'goToImplementation (concrete implementations of an interface or abstract member), hover (type and documentation).',
  'line and character are one-based; character counts UTF-16 code units. Locations come back as path:line:column with the source line.',
].join(' ')

/** The system-prompt section: when to reach for lsp instead of search and read. */
export const LSP_GUIDANCE = [
  '# lsp',
  'For ordinary navigation, searching and reading files is usually enough; prefer it.',
  'Use the lsp tool when text matches are ambiguous (overloads, shadowing, common names) or when a change needs the exact definitions, implementations or references of a symbol.',
  'Point it at the symbol itself: line and character are one-based, and character counts UTF-16 code units. A position that is not on a symbol returns nothing.',
  'findReferences includes the declaration. A result marked incomplete means the language server was still indexing; ask again later for cross-file answers.',
].join('\n')
