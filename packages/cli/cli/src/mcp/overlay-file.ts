import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { MAX_PRESET_FILE_BYTES, PRIVATE_FILE_MODE, readSmallRegularFile, writeFileAtomically, writePrivateFile } from 'dsh-core'
import { userMcpOverlay } from 'dsh-mcp/user-overlay'
import { isMap, isSeq, parseDocument, type Document, type YAMLSeq } from 'yaml'
import { UsageError } from '../args.ts'

/** The rows `dsh mcp add` and `import` write: `id: mcp-<serverName>`, so overlays can address them. */
export function rowId(serverName: string): string {
  return `mcp-${serverName}`
}

/**
 * An overlay file edited in place (comments and other rows kept), written atomically. It is only
 * ever a file the user named or the user-level overlay: a preset of this installation is refused.
 */
export class OverlayFile {
  private constructor(
    readonly path: string,
    private readonly document: Document,
  ) {}

  static async open(path: string, presetsDir: string): Promise<OverlayFile> {
    const absolute = resolve(path)
    if (absolute.startsWith(resolve(presetsDir) + '/') && !absolute.includes('/overlays/')) throw new UsageError(`${absolute} is a preset of dsh; name an overlay file with --config`)
    const text = existsSync(absolute) ? await readOverlay(absolute) : ''
    const parsed = parseDocument(text)
    if (parsed.errors.length) throw new UsageError(`${absolute} is not valid YAML: ${parsed.errors[0]!.message.split('\n')[0]}`)
    const document = parsed as unknown as Document
    if (document.contents === null) document.contents = document.createNode([])
    if (!isSeq(document.contents)) throw new UsageError(`${absolute} is not a list of rows`)
    return new OverlayFile(absolute, document)
  }

  private get rows(): YAMLSeq {
    return this.document.contents as YAMLSeq
  }

  /** The index of the dsh-mcp row for `serverName` (by id, or by its config's serverName), or -1. */
  find(serverName: string): number {
    return this.rows.items.findIndex((item) => {
      if (!isMap(item)) return false
      const row = item.toJSON() as { id?: unknown; name?: unknown; config?: { serverName?: unknown } }
      return row.id === rowId(serverName) || (row.name === 'dsh-mcp' && row.config?.serverName === serverName)
    })
  }

  add(config: Record<string, unknown>, disabled = false): void {
    this.addRow({ id: rowId(String(config.serverName)), name: 'dsh-mcp', ...(disabled ? { disabled: true } : {}), config })
  }

  remove(serverName: string): boolean {
    const index = this.find(serverName)
    if (index < 0) return false
    this.rows.delete(index)
    return true
  }

  has(serverName: string): boolean {
    return this.find(serverName) >= 0
  }

  /** Whether a row has this `id`. */
  hasRow(id: string): boolean {
    return this.rows.items.some((item) => isMap(item) && item.get('id') === id)
  }

  /** Appends a row as given (`add` builds a server's). */
  addRow(row: Record<string, unknown>): void {
    this.rows.add(this.document.createNode(row))
  }

  /**
   * Rows can hold literal secrets (`--env K=V`, `--header`), so the file is 0600. The user overlay's
   * directory is `$DSH_HOME`, which is made (or tightened to) 0700; a `--config` file's directory is
   * the user's own and left as it is.
   */
  async save(): Promise<void> {
    const text = this.document.toString()
    if (this.path === resolve(userMcpOverlay())) return writePrivateFile(this.path, text)
    await mkdir(dirname(this.path), { recursive: true })
    await writeFileAtomically(this.path, text, PRIVATE_FILE_MODE)
  }
}

/** The overlay's text, read as the preset runner reads it (a FIFO, a device or an oversized file is refused, never waited on). */
async function readOverlay(path: string): Promise<string> {
  try {
    return await readSmallRegularFile(path, MAX_PRESET_FILE_BYTES)
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}
