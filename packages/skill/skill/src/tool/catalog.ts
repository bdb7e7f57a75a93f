import { createHash } from 'node:crypto'
import { createUserMessage, isRecord, throwIfAborted, type JsonValue, type PreStepMiddleware, type Session, type UserMessage } from 'dsh-core'
import { catalogDescription } from '../render.ts'
import type { SkillRegistry } from '../service.ts'
import { isModelInvocable } from '../validate.ts'
import { fitBudget, type CatalogEntry } from './budget.ts'
import { initialCatalog, replacementCatalog } from './catalog-text.ts'
import type { ToolSkillConfig } from './config.ts'
import { sessionView } from './tool.ts'

export const CATALOG_KIND = 'skill-catalog'

/** sha256 over the entries (never the prose): JSON per entry keeps entry boundaries unambiguous. */
export function catalogDigest(entries: readonly CatalogEntry[]): string {
  return createHash('sha256')
    .update(entries.map((entry) => JSON.stringify([entry.name, entry.description])).join('\n'))
    .digest('hex')
}

/** The entries a logged or proposed catalog message recorded, or undefined when it is not a readable catalog. */
export function readableEntries(message: unknown): CatalogEntry[] | undefined {
  const source = (message as { source?: { kind?: unknown; entries?: unknown } } | null | undefined)?.source
  if (source?.kind !== CATALOG_KIND || !Array.isArray(source.entries)) return undefined
  for (const entry of source.entries as unknown[]) {
    if (!isRecord(entry) || typeof entry.name !== 'string' || !entry.name || typeof entry.description !== 'string') return undefined
  }
  return source.entries as CatalogEntry[]
}

/** What the log says: whether a catalog was ever published, and the digest of the newest one the model still sees. */
function history(session: Session): { published: boolean; visibleDigest: string | undefined } {
  const events = session.events
  let published = false
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!
    if (event.type !== 'user/message') continue
    const entries = readableEntries(event.data)
    if (!entries) continue
    published = true
    if (session.visible(event.seq)) return { published, visibleDigest: catalogDigest(entries) }
  }
  return { published, visibleDigest: undefined }
}

/**
 * The catalog pre-step: after the links inside it have decided, enters the model-invocable skills
 * of the session's view as a catalog message, but only when that list differs from the newest
 * catalog the model can still see. A first catalog is the initial one; later ones replace every
 * earlier list (an empty one retires them all). An incomplete discovery publishes nothing, so a
 * transient failure never tells the model its skills are gone.
 */
export function catalogLink(skills: SkillRegistry, visible: () => boolean, settings: ToolSkillConfig): PreStepMiddleware {
  return async (input, next) => {
    const decision = await next()
    if (decision.kind === 'reject') return decision
    throwIfAborted(input.signal)
    const { session, signal } = input
    // Without the tool the model cannot load anything: an empty view retires a published catalog.
    const snapshot = visible() ? await skills.snapshot(sessionView(session, signal)) : { skills: [], complete: true }
    throwIfAborted(signal)
    if (!snapshot.complete) return decision
    const offered = snapshot.skills.filter(isModelInvocable).map((skill) => ({ name: skill.name, description: catalogDescription(skill.description, settings.catalogDescriptionMaxLength) }))
    const budget = fitBudget(offered, settings.catalogBudgetChars, settings.catalogMinDescriptionLength)
    const digest = catalogDigest(budget.entries)
    const { published, visibleDigest } = history(session)
    const proposed = decision.messages.find((message) => readableEntries(message) !== undefined)
    const without = (message: UserMessage) => ({ kind: 'enter' as const, messages: decision.messages.filter((m) => m !== message) })
    if (visibleDigest === digest) return proposed ? without(proposed) : decision
    if (proposed && catalogDigest(readableEntries(proposed)!) === digest) return decision
    if (!published && !budget.entries.length) return proposed ? without(proposed) : decision
    const text = published ? replacementCatalog(budget, settings.catalogBudgetChars) : initialCatalog(budget, settings.catalogBudgetChars)
    const source: { kind: string; [key: string]: JsonValue } = {
      kind: CATALOG_KIND,
      form: 'catalog',
      ...(published ? { update: true } : {}),
      entries: budget.entries.map((entry) => ({ name: entry.name, description: entry.description })),
      ...(budget.shortened.length ? { shortened: [...budget.shortened] } : {}),
      ...(budget.omitted.length ? { omitted: [...budget.omitted] } : {}),
    }
    const catalog = createUserMessage(text, source)
    const messages = proposed ? decision.messages.map((message) => (message === proposed ? catalog : message)) : [...decision.messages, catalog]
    return { kind: 'enter', messages }
  }
}
