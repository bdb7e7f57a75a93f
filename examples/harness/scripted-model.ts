import type { SessionEvent } from 'dsh-core'
import type { Model, ModelReply } from './harness.ts'

/**
 * A stand-in for a model, so the loop runs without one: it loads the first skill the catalog
 * offers, then answers with what the tool returned. A real harness calls its model API here, with
 * `request.system` as the system prompt, `request.tools` as the tool list and `request.conversation`
 * as the messages.
 */
export const scriptedModel: Model = async (request) => {
  const results = request.conversation.filter((event) => event.type === 'tool/result')
  if (results.length) return answer(`The tool said:\n${(results.at(-1)!.data as { content: string[] }).content.join('\n')}`)
  const offered = request.conversation.flatMap(catalogEntries)
  const first = offered[0]
  if (first && request.tools.some((tool) => tool.name === 'skill')) return { kind: 'call', name: 'skill', arguments: { name: first } }
  return answer('No skill is offered here.')
}

const answer = (text: string): ModelReply => ({ kind: 'answer', text })

/** Skill names from a catalog message (its `source` carries the entries as data; no need to parse the text). */
function catalogEntries(event: SessionEvent): string[] {
  if (event.type !== 'user/message') return []
  const source = (event.data as { source?: { kind?: string; entries?: { name: string }[] } }).source
  return source?.kind === 'skill-catalog' ? (source.entries ?? []).map((entry) => entry.name) : []
}
