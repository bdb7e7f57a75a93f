import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CheckFailure } from './commands.ts'

/** A fenced code block of a Markdown file: its language and text, and the line it starts on. */
export interface CodeBlock {
  readonly language: string
  readonly text: string
  readonly line: number
  /** `docs/embedding.md:120`, for messages. */
  readonly where: string
}

export function codeBlocks(root: string, file: string): CodeBlock[] {
  const source = readFileSync(join(root, file), 'utf8')
  const blocks: CodeBlock[] = []
  for (const match of source.matchAll(/^(`{3,})([\w-]*)[^\n]*\n([\s\S]*?)^\1[ \t]*$/gm)) {
    const line = source.slice(0, match.index).split('\n').length
    blocks.push({ language: match[2]!, text: match[3]!, line, where: `${file}:${line}` })
  }
  return blocks
}

/**
 * How the pack check uses each block of docs/embedding.md. Every block must be one of these, so a
 * new one cannot go unchecked:
 * - `sh`: `npm install` lines; the check installs exactly those packages (dsh ones from the tarballs).
 * - `js` whose first line is `// name.mjs`: a program, run with node in a CommonJS project.
 * - `yaml` whose first line is `# name.yml`: a file the programs read, written beside them.
 * - `ts`: a fragment of a harness's loop, compiled against the published declarations with the
 *   loop's names (`app`, `session`, `signal`, `call`, `ui`) declared.
 */
export type EmbeddingSnippet =
  | { readonly kind: 'install'; readonly packages: readonly string[]; readonly block: CodeBlock }
  | { readonly kind: 'program' | 'file'; readonly name: string; readonly block: CodeBlock }
  | { readonly kind: 'fragment'; readonly block: CodeBlock }

export function embeddingSnippets(root: string): EmbeddingSnippet[] {
  return codeBlocks(root, 'docs/embedding.md').map((block): EmbeddingSnippet => {
    const first = block.text.split('\n', 1)[0]!.trim()
    switch (block.language) {
      case 'sh': {
        const commands = block.text.trim().split('\n')
        const packages = commands.flatMap((command) => /^npm install ((?:[\w@./-]+ ?)+)$/.exec(command.trim())?.[1]!.trim().split(' ') ?? [])
        if (!packages.length || commands.some((command) => !command.trim().startsWith('npm install '))) throw new CheckFailure(`${block.where}: a sh block holds only npm install lines`)
        return { kind: 'install', packages, block }
      }
      case 'js': {
        const name = /^\/\/ ([\w-]+\.mjs)$/.exec(first)?.[1]
        if (!name) throw new CheckFailure(`${block.where}: a js block starts with the file it is saved as (// name.mjs)`)
        return { kind: 'program', name, block }
      }
      case 'yaml': {
        const name = /^# ([\w-]+\.ya?ml)$/.exec(first)?.[1]
        if (!name) throw new CheckFailure(`${block.where}: a yaml block starts with its file name (# name.yml)`)
        return { kind: 'file', name, block }
      }
      case 'ts':
        return { kind: 'fragment', block }
      default:
        throw new CheckFailure(`${block.where}: the pack check does not know how to run a ${block.language || 'plain'} block (see scripts/pack-check/snippets.ts)`)
    }
  })
}

/**
 * The `yaml` files of docs/embedding.md that are presets (every row names its plugin), as opposed
 * to overlays (rows addressed by `id` alone): the pack check runs `dsh status --preset` on each.
 */
export function embeddingPresets(snippets: readonly EmbeddingSnippet[]): { readonly name: string; readonly block: CodeBlock }[] {
  return snippets.flatMap((snippet) => {
    if (snippet.kind !== 'file') return []
    const rows = snippet.block.text.split('\n').filter((line) => line.startsWith('- '))
    return rows.length && rows.every((row) => /\bname:/.test(row)) ? [{ name: snippet.name, block: snippet.block }] : []
  })
}

/** What a fragment may use without declaring it: the names a harness's loop has (docs/embedding.md, "The agent loop"). */
export const FRAGMENT_PRELUDE = `// Written by scripts/pack-check: the loop's names a docs/embedding.md fragment uses.
import type { Context } from 'cordis'
import type { Session, ToolCall } from 'dsh-core'
declare const app: Context
declare const session: Session
declare const signal: AbortSignal
declare const call: Pick<ToolCall, 'name' | 'arguments'>
declare const ui: { confirm(title: string, details: unknown, options: { signal: AbortSignal }): Promise<boolean> }
`

/** An MCP client's server entry from the README: the command and arguments it starts. */
export interface ClientEntry {
  readonly where: string
  readonly command: string
  readonly args: readonly string[]
}

/** The `mcpServers` (JSON) and `[mcp_servers.*]` (Codex TOML) entries of the README. */
export function readmeClientEntries(root: string): ClientEntry[] {
  const entries: ClientEntry[] = []
  for (const block of codeBlocks(root, 'README.md')) {
    if (block.language === 'json' && block.text.includes('"mcpServers"')) {
      const servers = (JSON.parse(block.text) as { mcpServers: Record<string, { command: string; args?: string[] }> }).mcpServers
      for (const server of Object.values(servers)) entries.push({ where: block.where, command: server.command, args: server.args ?? [] })
    } else if (block.language === 'toml' && /^\[mcp_servers\./m.test(block.text)) {
      // The two keys Codex needs, each a TOML string or array of strings (JSON's syntax for both).
      const value = (key: string) => JSON.parse(new RegExp(`^${key} = (.*)$`, 'm').exec(block.text)?.[1] ?? 'null') as unknown
      const command = value('command')
      const args = value('args') ?? []
      if (typeof command !== 'string' || !Array.isArray(args)) throw new CheckFailure(`${block.where}: no command = "…" and args = [ … ] in the Codex entry`)
      entries.push({ where: block.where, command, args: args as string[] })
    }
  }
  if (!entries.length) throw new CheckFailure('README.md: no MCP client configuration found')
  return entries
}
