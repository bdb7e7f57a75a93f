import { parseDocument } from 'yaml'
import { errorMessage } from '../errors.ts'
import { PresetError } from './errors.ts'
import { plainData } from './plain-data.ts'

// The YAML side of the preset reader, in a module of its own: the parser is the largest code a
// `dsh` start would compile (≈ 270 KB bundled), and a shipped preset read through its twin never
// needs it. `readRows` imports this module only for a file it has to parse (issue 27 item 5).

const MAX_ALIAS_COUNT = 100

/**
 * A preset's YAML read into plain data. Throws PRESET_INVALID naming `what` (`preset /x/base.yml`).
 * A package that ships presets may write each one's result beside it with `presetTwin`.
 */
export function parseYaml(text: string, what: string): unknown {
  // Editors on Windows save a byte order mark; it is not part of the YAML.
  const document = parseDocument(text.replace(/^\uFEFF/, ''), { prettyErrors: true, uniqueKeys: true })
  // Unknown tags (`!!js …`) are warnings to the parser; we never evaluate them, so refuse them.
  const problem = document.errors[0] ?? document.warnings[0]
  if (problem) throw new PresetError(`${what} is not valid YAML: ${firstLine(problem.message)}`, 'PRESET_INVALID')
  try {
    // The alias cap refuses a "billion laughs" file before it expands.
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT })
  } catch (error) {
    throw new PresetError(`${what} is not valid YAML: ${firstLine(errorMessage(error))}`, 'PRESET_INVALID', { cause: error })
  }
}

/**
 * The twin of a preset a package ships (`base.yml.json` beside `base.yml`): the file's text and what
 * `parseYaml` made of it, as JSON. Parsing the YAML was about 4 % of `dsh tools`' CPU (the parser's
 * code compiled on first use; issue 27 item 5); JSON.parse of the twin costs next to nothing.
 */
export function presetTwin(text: string, what: string): string {
  // Only plain data survives JSON unchanged; anything else stays the YAML's to refuse at boot.
  return `${JSON.stringify({ yaml: text, value: plainData(parseYaml(text, what), what) })}\n`
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? ''
}
