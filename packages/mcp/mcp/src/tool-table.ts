import type { ToolDefinition } from 'dsh-core'
import type { PlannedTool } from './discovery.ts'

/** Tools per registration: a change re-registers only the chunks it touches. */
const CHUNK_SIZE = 256

export interface TableHost {
  /** Registers definitions on the row's scope, all or none (throws on a taken name); returns the disposer. */
  register(definitions: readonly ToolDefinition[]): () => void
  /** Runs registrations and disposals as one change of the catalog. */
  batch<T>(change: () => T): T
  define(tool: PlannedTool): ToolDefinition
}

interface Chunk {
  readonly names: readonly string[]
  readonly dispose: () => void
}

interface Entry {
  readonly tool: PlannedTool
  readonly definition: ToolDefinition
  readonly chunk: Chunk
}

/**
 * A server's published tools, registered in chunks. `apply` diffs the next set against what is
 * registered by public name and fingerprint: an unchanged tool keeps its registration (and its
 * definition), a set that changes nothing touches nothing, and a change re-registers only the
 * chunks holding a changed or removed tool, in one catalog change.
 */
export class ToolTable {
  private readonly entries = new Map<string, Entry>()

  constructor(private readonly host: TableHost) {}

  get names(): string[] {
    return [...this.entries.keys()]
  }

  /** The registered tools by fingerprint, for planning the next set. */
  byFingerprint(): Map<string, PlannedTool> {
    return new Map([...this.entries.values()].map((entry) => [entry.tool.fingerprint, entry.tool]))
  }

  /**
   * Makes the registered tools exactly `tools`; returns whether anything changed. A taken name
   * throws what `register` throws, and the table is then empty: a server publishes all its tools
   * or none.
   */
  apply(tools: readonly PlannedTool[]): boolean {
    const next = new Map(tools.map((tool) => [tool.publicName, tool]))
    const unchanged = (entry: Entry) => next.get(entry.tool.publicName)?.fingerprint === entry.tool.fingerprint
    const touched = new Set<Chunk>()
    for (const entry of this.entries.values()) if (!unchanged(entry)) touched.add(entry.chunk)
    const fresh = tools.filter((tool) => this.entries.get(tool.publicName)?.tool.fingerprint !== tool.fingerprint)
    if (!touched.size && !fresh.length) return false
    this.host.batch(() => {
      const again: { tool: PlannedTool; definition: ToolDefinition }[] = []
      for (const chunk of touched) {
        chunk.dispose()
        for (const name of chunk.names) {
          const entry = this.entries.get(name)!
          this.entries.delete(name)
          if (unchanged(entry)) again.push(entry)
        }
      }
      const pending = [...again, ...fresh.map((tool) => ({ tool, definition: this.host.define(tool) }))]
      try {
        for (let start = 0; start < pending.length; start += CHUNK_SIZE) this.add(pending.slice(start, start + CHUNK_SIZE))
      } catch (error) {
        this.clear()
        throw error
      }
    })
    return true
  }

  /** Unregisters every tool. */
  clear(): void {
    if (!this.entries.size) return
    const chunks = new Set([...this.entries.values()].map((entry) => entry.chunk))
    this.entries.clear()
    this.host.batch(() => {
      for (const chunk of chunks) chunk.dispose()
    })
  }

  private add(part: readonly { tool: PlannedTool; definition: ToolDefinition }[]): void {
    const dispose = this.host.register(part.map((item) => item.definition))
    const chunk: Chunk = { names: part.map((item) => item.tool.publicName), dispose }
    for (const item of part) this.entries.set(item.tool.publicName, { ...item, chunk })
  }
}
