import { GetPromptRequestSchema, ListPromptsRequestSchema } from '@modelcontextprotocol/core'
import { quote, type Session } from 'dsh-core'
import { renderSkillContent, type SkillRegistry } from 'dsh-skill'
import { promptLoadError } from './serve-prompt-errors.ts'
import { RpcCode, RpcError, type Routes } from './serve-rpc.ts'

/**
 * User-invocable skills as MCP prompts: `prompts/list` names them, `prompts/get` returns the skill
 * rendered exactly as `/name` enters it (cut at the skills service's `loadMaxChars`), with the
 * user's argument text after it. The skills seen are
 * those of the served session's workspace.
 */
/** The one argument each skill prompt declares: the text typed after `/name`. */
const ARGUMENT = 'arguments'

export function servePrompts(routes: Routes, skills: SkillRegistry, session: Session): void {
  const view = (signal: AbortSignal) => ({ cwd: session.cwd, scope: session, signal })
  routes.add(ListPromptsRequestSchema, async (_request, extra) => ({
    prompts: (await skills.list(view(extra.mcpReq.signal)))
      .filter((skill) => skill.invocation.userInvocable)
      .map((skill) => ({
        name: skill.name,
        description: skill.description,
        arguments: [{ name: ARGUMENT, description: 'What to do with the skill (appended after it, as text after /name would be)', required: false }],
      })),
  }))
  routes.add(GetPromptRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params
    const skill = await skills.get(name, view(extra.mcpReq.signal)).catch((error: unknown) => {
      // -32602 when the skill cannot be a prompt (its file broke since it was listed: the skill then
      // leaves the catalog, and later loads hear "no user-invocable skill"), -32603 when the server
      // failed at a right request (EIO, EMFILE; an MCP server that failed): serve-prompt-errors.ts.
      throw promptLoadError(name, error) ?? error
    })
    if (!skill?.invocation.userInvocable) throw new RpcError(RpcCode.INVALID_PARAMS, `no user-invocable skill named ${quote(name)}`)
    // A client that names the text otherwise (`input`, `args`) would get the skill without it and
    // never hear that what the user typed was dropped.
    const unknown = Object.keys(args ?? {}).filter((key) => key !== ARGUMENT)
    if (unknown.length) {
      const named = unknown.slice(0, 5).map((key) => quote(key, 80)).join(', ') + (unknown.length > 5 ? ` and ${unknown.length - 5} more` : '')
      throw new RpcError(RpcCode.INVALID_PARAMS, `prompt ${quote(name)} has one argument, "${ARGUMENT}" (the text that follows /name); it was sent ${named}`)
    }
    // Bounded as the `skill` tool and `/name` bound it (the skills service's loadMaxChars and note).
    const rendered = renderSkillContent({ ...skill, content: skills.forModel(skill) })
    const text = args?.arguments?.trim() ? `${rendered}\n\n${args.arguments.trim()}` : rendered
    return { description: skill.description, messages: [{ role: 'user', content: { type: 'text', text } }] }
  })
}
