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
