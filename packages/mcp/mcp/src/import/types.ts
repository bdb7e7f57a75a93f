import { SERVER_NAME_CHARACTERS, sharedNameProblem } from '../naming.ts'

/** One server read from another client's config, as the `config` of a dsh-mcp row. */
export interface ImportedServer {
  /** The name in the source file. */
  readonly sourceName: string
  /** The row config (`serverName`, `transport`, …), not yet validated. */
  readonly config: Record<string, unknown>
  /** The source turned it off (`enabled = false`): the row is written `disabled: true`. */
  readonly disabled: boolean
}

export interface ImportResult {
  readonly format: 'claude' | 'codex'
  readonly servers: readonly ImportedServer[]
  /** Every field that has no equivalent, and every change made (a renamed server): nothing is dropped silently. */
  readonly notes: readonly string[]
}

/**
 * A dsh server name for `name`: other characters become `_`, runs of `_` one, at most 32
 * characters, no trailing `_` (naming.ts says why). A change is noted.
 */
export function serverNameFor(name: string, note?: Notes): string {
  if (SERVER_NAME_CHARACTERS.test(name) && !sharedNameProblem(name)) return name
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, '_').replace(/_{2,}/g, '_').slice(0, 32).replace(/_+$/, '')
  const renamed = cleaned || 'server'
  note?.changed(`renamed to "${renamed}" (dsh server names are 1-32 letters, digits, _ or -, without "__" or a trailing "_")`)
  return renamed
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Collects the notes of one server: `where` prefixes each. */
export class Notes {
  readonly lines: string[] = []

  constructor(private readonly where: string) {}

  unsupported(field: string, why: string): void {
    this.lines.push(`${this.where}: ${field} is not imported: ${why}`)
  }

  changed(what: string): void {
    this.lines.push(`${this.where}: ${what}`)
  }
}

/** OAuth's own spelling of scopes, one space-separated string, becomes the list dsh takes. */
export function scopeList(value: unknown, note: Notes): unknown {
  if (typeof value !== 'string') return value
  note.changed(`oauth scopes ${JSON.stringify(value)} read as the list ${JSON.stringify(value.split(/[\s,]+/).filter(Boolean))}`)
  return value.split(/[\s,]+/).filter(Boolean)
}

/**
 * VS Code's `${input:id}` asks the user for a value when the server starts; dsh asks nothing and
 * would send the text as it is (a header `Bearer ${input:token}`), so each one is named.
 */
export function noteInputReferences(config: Record<string, unknown>, note: Notes, path = ''): void {
  for (const [key, value] of Object.entries(config)) {
    const field = path ? `${path}.${key}` : key
    if (typeof value === 'string' && /\$\{input:[^}]*\}/.test(value)) {
      note.changed(`${field} holds ${/\$\{input:[^}]*\}/.exec(value)![0]}, a VS Code prompt for a value: dsh does not prompt and sends it literally; put the value there or use \${VAR}`)
    } else if (Array.isArray(value)) noteInputReferences(Object.fromEntries(value.map((item, index) => [String(index), item])), note, field)
    else if (isRecord(value)) noteInputReferences(value, note, field)
  }
}
