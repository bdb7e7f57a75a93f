import { readFile } from 'node:fs/promises'
import { fromClaudeJson } from './claude.ts'
import { fromCodexToml } from './codex.ts'
import type { ImportResult } from './types.ts'

/** Reads a Claude Code `.mcp.json` or a Codex `config.toml` (told apart by the `.toml` suffix). */
export async function readMcpConfigFile(file: string): Promise<ImportResult> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new Error(`${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  return file.toLowerCase().endsWith('.toml') ? fromCodexToml(text, file) : fromClaudeJson(text, file)
}
