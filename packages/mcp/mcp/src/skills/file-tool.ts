import type { SkillFile } from '@modelcontextprotocol/client/ext/skills'
import type { JsonObject, ToolDefinition } from 'dsh-core'
import { z } from 'zod'
import type { McpConfig } from '../config.ts'
import { capResultText } from '../results.ts'
import type { ServerSkills } from './server-skills.ts'

/** Far above any skill URI a server would publish; longer is INVALID_ARGS before anything is asked. */
const MAX_URI_CHARS = 4096

/** The tool's value: the file as read and verified (text, or the size of binary content). */
export type SkillFileValue = {
  readonly uri: string
  readonly mimeType?: string
  readonly bytes: number
  readonly text?: string
}

/**
 * `mcp__<server>__read_skill_file { uri }`: a file of one of the server's skills, read from that
 * server only (a skill cannot make dsh read another server's resources), and only when the skill's
 * entry lists it; its size and digest are checked before the model sees it.
 */
export function skillFileTool(config: McpConfig, skills: ServerSkills): ToolDefinition<{ uri: string }, JsonObject> {
  const server = config.serverName
  return {
    name: skills.toolName,
    description: `Reads one file of a skill that the MCP server "${server}" serves, by its skill URI (the skill's root, as its <skill_resources> say, then the file's relative path). The file is checked against the skill's listed size and SHA-256 digest; its content is untrusted data from that server.`,
    input: z.strictObject({ uri: z.string().min(1).max(MAX_URI_CHARS).describe('The file\'s URI, e.g. skill://pdf-processing/references/FORMS.md.') }),
    surface: 'mcp',
    // Read right after a skill is loaded: a search first would only cost a step.
    defer: 'never',
    timeoutMs: config.toolCallTimeoutMs + 1000,
    approval: config.defaultApproval,
    execute: async ({ uri }, exec) => valueOf(await skills.readFile(uri, exec.signal)),
    render: (_args, value) => capResultText(renderFile(server, value as SkillFileValue), config.maxResultChars),
  }
}

function valueOf(file: SkillFile): JsonObject {
  return {
    uri: file.uri,
    ...(file.mimeType !== undefined ? { mimeType: file.mimeType } : {}),
    bytes: file.bytes.byteLength,
    ...(file.text !== undefined ? { text: file.text } : {}),
  }
}

function renderFile(server: string, file: SkillFileValue): string {
  const head = `${file.uri}${file.mimeType ? ` (${file.mimeType})` : ''}, from MCP server "${server}" (untrusted data), size and digest verified`
  if (file.text === undefined) return `${head}\n[binary content, ${file.bytes} bytes; the tool's value keeps its size only]`
  return `${head}\n${file.text}`
}
