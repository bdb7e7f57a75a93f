/** The tool description the model reads in the catalog. */
export const LSP_TOOL_DESCRIPTION = [
  'Ask the language server for exact code navigation at one symbol.',
  'Operations: goToDefinition (where the symbol is defined), findReferences (every use, the declaration included),',
  'goToImplementation (concrete implementations of an interface or abstract member), hover (type and documentation).',
  'Always pass symbol (the identifier as written) when you know the name: the tool then finds its column on the one-based line, and the line if it is a few off.',
  'Without symbol, line and character are one-based and character counts UTF-16 code units.',
  'Locations come back as path:line:column with the source line.',
].join(' ')

/** The system-prompt section: when to reach for lsp instead of search and read, and how to point it. */
export const LSP_GUIDANCE = [
  '# lsp',
  'For ordinary navigation, searching and reading files is usually enough; prefer it.',
  'Use the lsp tool when text matches are ambiguous (overloads, shadowing, common names) or when a change needs the exact definitions, implementations or references of a symbol.',
  'Always pass symbol when you know the name: the identifier exactly as written in the source ("area", not "shape.area()"), with its one-based line. The tool finds the column itself, looks a few lines around if the line is off, and says where it resolved. character is then optional and only picks the nearest occurrence; for a later use of the name on the same line pass occurrence (1 is the first).',
  'Without symbol, line and character are one-based and character counts UTF-16 code units; a column that is off by one returns nothing or the wrong symbol.',
  'If the symbol is not found, the error lists the identifiers on that line: pick the right one and call again.',
  'findReferences includes the declaration. A result marked incomplete means the language server was still indexing; ask again later for cross-file answers.',
].join('\n')
