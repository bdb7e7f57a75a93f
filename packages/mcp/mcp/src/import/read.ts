import { readSmallRegularFile } from 'dsh-core'
import { fromClaudeJson } from './claude.ts'
import { fromCodexToml } from './codex.ts'
import type { ImportResult } from './types.ts'

/**
 * A client's MCP file is a short list of servers; one larger than this is not one. It is read
 * before any trust question (`dsh mcp list` lists a workspace's servers without starting them), so
 * a FIFO, device or huge file in its place is refused, never waited on or read whole.
 */
export const MAX_MCP_CONFIG_FILE_BYTES = 4 * 1024 * 1024

/** Reads a Claude Code `.mcp.json` or a Codex `config.toml` (told apart by the `.toml` suffix). */
export async function readMcpConfigFile(file: string): Promise<ImportResult> {
  return parseMcpConfigText(await readSmallRegularFile(file, MAX_MCP_CONFIG_FILE_BYTES), file)
}

/** The text of a Claude Code `.mcp.json` or a Codex `config.toml`, told apart by `file`'s `.toml` suffix. */
export function parseMcpConfigText(text: string, file: string): ImportResult {
  return file.toLowerCase().endsWith('.toml') ? fromCodexToml(text, file) : fromClaudeJson(text, file)
}
