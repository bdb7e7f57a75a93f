import { createUserMessage, isRecord, throwIfAborted, type JsonValue, type PreStepMiddleware, type Session, type UserMessage } from 'dsh-core'
import { catalogDescription } from '../render.ts'
import type { SkillRegistry } from '../service.ts'
import type { SkillSnapshot, SkillSummary } from '../types.ts'
import { isModelInvocable } from '../validate.ts'
import { fitCatalog, type CatalogEntry, type FittedCatalog } from './budget.ts'
import { initialCatalog, replacementCatalog } from './catalog-text.ts'
import type { ToolSkillConfig } from './config.ts'
import { byPriority, type RecentSkills } from './priority.ts'
import { sessionView } from './tool.ts'

export const CATALOG_KIND = 'skill-catalog'

/** What a catalog shows the model: the described entries and the names listed without descriptions. */
export interface CatalogContent {
  readonly entries: readonly CatalogEntry[]
  readonly names: readonly string[]
  /** Project skills not loaded because the workspace is not trusted (0: none). */
  readonly untrusted: number
}

/**
 * sha256 over what the catalog shows (never the prose): JSON per entry keeps entry boundaries
 * unambiguous, and the names-only list and the untrusted count are one JSON object each after them
 * (absent when empty or 0, so a catalog without them hashes as it always did).
 */
export function catalogDigest(entries: readonly CatalogEntry[], names: readonly string[] = [], untrusted = 0): string {
  const lines = entries.map((entry) => JSON.stringify([entry.name, entry.description]))
  if (names.length) lines.push(JSON.stringify({ names }))
  if (untrusted) lines.push(JSON.stringify({ untrusted }))
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(lines.join('\n')).digest('hex')
}

/** What a logged or proposed catalog message recorded, or undefined when it is not a readable catalog. */
export function readableCatalog(message: unknown): CatalogContent | undefined {
  const source = (message as { source?: { kind?: unknown; entries?: unknown; names?: unknown; untrusted?: unknown } } | null | undefined)?.source
  if (source?.kind !== CATALOG_KIND || !Array.isArray(source.entries)) return undefined
  for (const entry of source.entries as unknown[]) {
    if (!isRecord(entry) || typeof entry.name !== 'string' || !entry.name || typeof entry.description !== 'string') return undefined
  }
  const names = source.names ?? []
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string' && name)) return undefined
  const untrusted = source.untrusted ?? 0
  if (typeof untrusted !== 'number' || !Number.isSafeInteger(untrusted) || untrusted < 0) return undefined
  return { entries: source.entries as CatalogEntry[], names: names as string[], untrusted }
}

const digestOf = (content: CatalogContent) => catalogDigest(content.entries, content.names, content.untrusted)

/** What the log says: whether a catalog was ever published, and the digest of the newest one the model still sees. */
function history(session: Session): { published: boolean; visibleDigest: string | undefined } {
  const events = session.events
  let published = false
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!
    if (event.type !== 'user/message') continue
    const content = readableCatalog(event.data)
    if (!content) continue
    published = true
    if (session.visible(event.seq)) return { published, visibleDigest: digestOf(content) }
  }
  return { published, visibleDigest: undefined }
}

/**
 * Fitted catalogs by the observation they came from (the registry hands out the same summaries array
 * while its observation stands) and the session's recent skills: every pre-step of every session
 * between two changes shares the work, which with thousands of skills is tens of milliseconds.
 */
class FittedCatalogs {
  private readonly byObservation = new WeakMap<readonly SkillSummary[], Map<string, FittedCatalog>>()

  get(skills: readonly SkillSummary[], recent: ReadonlyMap<string, number>, fit: () => FittedCatalog): FittedCatalog {
    // Only the order of use matters, and most sessions have used nothing yet.
    const key = [...recent].sort((a, b) => b[1] - a[1]).map(([name]) => name).join(',')
    let byRecent = this.byObservation.get(skills)
    if (!byRecent) this.byObservation.set(skills, (byRecent = new Map()))
    let catalog = byRecent.get(key)
    if (!catalog) {
      if (byRecent.size >= MAX_FITTED_PER_OBSERVATION) byRecent.delete(byRecent.keys().next().value!)
      byRecent.set(key, (catalog = fit()))
    }
    return catalog
  }
}

const MAX_FITTED_PER_OBSERVATION = 32

/** The catalog's entries and names-only list, flattened in display order. */
function contentOf(catalog: FittedCatalog, untrusted: number): CatalogContent {
  return { entries: catalog.described, names: catalog.named.flatMap((group) => group.names), untrusted }
}

/**
 * The catalog pre-step: after the links inside it have decided, enters the model-invocable skills
 * of the session's view as a catalog message, but only when what it shows differs from the newest
 * catalog the model can still see. A first catalog is the initial one; later ones replace every
 * earlier list (an empty one retires them all). An incomplete discovery publishes nothing, so a
 * transient failure never tells the model its skills are gone. Past the budget, descriptions are
 * shortened, then skills are listed by name only, then left out, in priority order (`byPriority`).
 */
export function catalogLink(skills: SkillRegistry, visible: () => boolean, recent: RecentSkills, settings: ToolSkillConfig): PreStepMiddleware {
  const fitted = new FittedCatalogs()
  const budget = { describedChars: settings.catalogBudgetChars, namesChars: settings.catalogNamesBudgetChars, minDescription: settings.catalogMinDescriptionLength }
  return async (input, next) => {
    const decision = await next()
    if (decision.kind === 'reject') return decision
    throwIfAborted(input.signal)
    const { session, signal } = input
    // Without the tool the model cannot load anything: an empty view retires a published catalog.
    const snapshot: SkillSnapshot = visible() ? await skills.snapshot(sessionView(session, signal)) : { skills: [], complete: true }
    throwIfAborted(signal)
    if (!snapshot.complete) return decision
    const used = recent.of(session)
    const catalog = fitted.get(snapshot.skills, used, () => {
      const offered = byPriority(snapshot.skills.filter(isModelInvocable), used).map(({ skill, origin }) => ({
        name: skill.name,
        description: catalogDescription(skill.description, settings.catalogDescriptionMaxLength),
        origin,
      }))
      return fitCatalog(offered, budget)
    })
    const content = contentOf(catalog, snapshot.untrusted ?? 0)
    const digest = digestOf(content)
    const { published, visibleDigest } = history(session)
    const proposed = decision.messages.find((message) => readableCatalog(message) !== undefined)
    const without = (message: UserMessage) => ({ kind: 'enter' as const, messages: decision.messages.filter((m) => m !== message) })
    if (visibleDigest === digest) return proposed ? without(proposed) : decision
    if (proposed && digestOf(readableCatalog(proposed)!) === digest) return decision
    if (!published && !content.entries.length && !content.names.length && !content.untrusted) return proposed ? without(proposed) : decision
    const text = published ? replacementCatalog(catalog, settings.catalogBudgetChars, content.untrusted) : initialCatalog(catalog, settings.catalogBudgetChars, content.untrusted)
    const source: { kind: string; [key: string]: JsonValue } = {
      kind: CATALOG_KIND,
      form: 'catalog',
      ...(published ? { update: true } : {}),
      entries: content.entries.map((entry) => ({ name: entry.name, description: entry.description })),
      ...(content.names.length ? { names: [...content.names] } : {}),
      ...(catalog.shortened ? { shortened: catalog.shortened } : {}),
      ...(catalog.omitted ? { omitted: catalog.omitted } : {}),
      ...(content.untrusted ? { untrusted: content.untrusted } : {}),
    }
    const message = createUserMessage(text, source)
    const messages = proposed ? decision.messages.map((m) => (m === proposed ? message : m)) : [...decision.messages, message]
    return { kind: 'enter', messages }
  }
}
