import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { readSmallRegularFile, writeFileAtomically } from 'dsh-core'
import { MAX_MCP_CONFIG_FILE_BYTES } from 'dsh-mcp'
import { UsageError } from '../args.ts'

/** Claude Code's project file, in the workspace's top directory. */
export const PROJECT_FILE = '.mcp.json'

/**
 * A project's `.mcp.json`, the file `claude mcp add --scope project` writes, edited by
 * `dsh mcp add/remove --scope project`: the team shares one list whichever client they use. Its
 * other servers and keys are kept; entries are written in Claude Code's shape.
 */
export class ProjectMcpFile {
  private constructor(
    readonly path: string,
    private readonly document: { mcpServers: Record<string, unknown> } & Record<string, unknown>,
  ) {}

  static async open(workspace: string): Promise<ProjectMcpFile> {
    const path = join(workspace, PROJECT_FILE)
    if (!existsSync(path)) return new ProjectMcpFile(path, { mcpServers: {} })
    let text: string
    try {
      // The repository's file: a FIFO or device in its place is refused, never waited on.
      text = await readSmallRegularFile(path, MAX_MCP_CONFIG_FILE_BYTES)
    } catch (error) {
      throw new UsageError((error as Error).message)
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text.replace(/^\uFEFF/, ''))
    } catch (error) {
      throw new UsageError(`${path} is not valid JSON: ${(error as Error).message}`)
    }
    if (!isObject(parsed) || (parsed.mcpServers !== undefined && !isObject(parsed.mcpServers))) throw new UsageError(`${path} is not a Claude Code .mcp.json (an object with "mcpServers")`)
    return new ProjectMcpFile(path, { ...parsed, mcpServers: { ...(parsed.mcpServers as Record<string, unknown> | undefined) } })
  }

  has(serverName: string): boolean {
    return Object.hasOwn(this.document.mcpServers, serverName)
  }

  /** A row config as written by `dsh mcp add` (stdio, or a URL with headers), as a Claude Code entry. */
  add(config: Record<string, unknown>): void {
    const { serverName, transport, ...rest } = config
    const type = transport === 'streamable-http' ? 'http' : transport
    this.document.mcpServers[String(serverName)] = { type, ...rest }
  }

  remove(serverName: string): boolean {
    if (!this.has(serverName)) return false
    delete this.document.mcpServers[serverName]
    return true
  }

  /** Meant to be committed and shared: the usual mode, not a private one. */
  save(): Promise<void> {
    return writeFileAtomically(this.path, `${JSON.stringify(this.document, null, 2)}\n`)
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
