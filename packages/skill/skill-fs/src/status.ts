import { relative } from 'node:path'
import type { CapabilityItem, CapabilityRow } from 'dsh-core'
import type { SkillCandidate } from 'dsh-skill'
import type { Rejection, ScannedRoot } from './scan.ts'

/** A skill file whose name a better-ranked file (in the same root or an earlier one) already offers. */
export interface Shadowed {
  readonly path: string
  readonly by: string
}

/** A root as a read saw it together with the others: the names it wins, and its files shadowed by better ones. */
export interface RootReport extends ScannedRoot {
  readonly skills: number
  readonly shadowed: readonly Shadowed[]
}

/**
 * Every root of a read, in rank order, with each name offered once: the first file of a name wins
 * it (as the registry's rank order would), later ones are shadowed and not offered at all.
 */
export function resolveNames(scanned: readonly ScannedRoot[]): { candidates: SkillCandidate[]; reports: RootReport[] } {
  const winners = new Map<string, string>()
  const candidates: SkillCandidate[] = []
  const reports = scanned.map((root): RootReport => {
    const shadowed: Shadowed[] = []
    let skills = 0
    for (const candidate of root.candidates) {
      const path = candidate.path!
      const by = winners.get(candidate.name)
      if (by !== undefined) {
        shadowed.push({ path, by })
        continue
      }
      winners.set(candidate.name, path)
      candidates.push(candidate)
      skills++
    }
    return { ...root, skills, shadowed }
  })
  return { candidates, reports }
}

/** At most this many items of one kind are named on a status row, or logged one by one. */
const LISTED = 10

const count = (n: number) => n.toLocaleString('en-US')
const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`

function bounded(items: readonly string[]): string {
  const shown = items.slice(0, LISTED)
  return items.length > LISTED ? [...shown, `and ${count(items.length - LISTED)} more (dsh status --json lists them)`].join('; ') : shown.join('; ')
}

/** The `dsh status` summary row: names offered (not files), roots, the project, shadowed files, how the roots are watched. */
export function summaryRow(id: string, project: string | undefined, reports: readonly RootReport[], watching: string): CapabilityRow {
  const skills = reports.reduce((sum, report) => sum + report.skills, 0)
  const shadowed = reports.reduce((sum, report) => sum + report.shadowed.length, 0)
  const parts = [`${plural(skills, 'skill')} in ${count(reports.length)} roots${project ? ` (project ${project})` : ''}`]
  if (shadowed) parts.push(`${count(shadowed)} shadowed`)
  parts.push(watching)
  return { id, state: 'ready', detail: parts.join('; ') }
}

/** Whether a root has anything to say on its own row. */
export function worthARow(report: RootReport, notWatched: string | undefined): boolean {
  return Boolean(report.skills || report.shadowed.length || report.rejected.length || report.warnings.length || report.unreadable || report.unlooked || notWatched)
}

/**
 * One root's row: its skills, then (each bounded) its warnings, shadowed files and rejections, and
 * whether it is watched; `unavailable` when nothing in it is usable. `items` has every warning,
 * shadowed file and rejection with its absolute path, the first `maxItems` of them.
 */
export function rootRow(report: RootReport, notWatched: string | undefined, maxItems: number): CapabilityRow {
  const { root, skills, warnings, shadowed, rejected, unreadable } = report
  // Inside the root, relative to it; elsewhere (a better root's file), absolute.
  const where = (path: string) => {
    const inside = relative(root.path, path)
    return encodingNoted(path, inside && !inside.startsWith('..') ? inside : path)
  }
  const listed = (items: readonly Rejection[]) => bounded(items.map((item) => `${where(item.path)} (${item.reason})`))
  const parts = unreadable ? [`${root.path}: cannot be read: ${unreadable}`] : [`${root.path}: ${plural(skills, 'skill')}`]
  if (report.unlooked) parts.push(unlookedNote(report.unlooked))
  if (warnings.length) parts.push(`${plural(warnings.length, 'warning')}: ${listed(warnings)}`)
  if (shadowed.length) parts.push(`${count(shadowed.length)} shadowed: ${bounded(shadowed.map((item) => `${where(item.path)} (by ${where(item.by)})`))}`)
  if (rejected.length) parts.push(`${count(rejected.length)} rejected: ${listed(rejected)}`)
  if (notWatched) parts.push(`not watched: ${notWatched}`)
  const items: CapabilityItem[] = [
    ...warnings.map((item) => ({ kind: 'warning', path: item.path, reason: item.reason })),
    ...shadowed.map((item) => ({ kind: 'shadowed', path: item.path, reason: `shadowed by ${item.by}` })),
    ...rejected.map((item) => ({ kind: 'rejected', path: item.path, reason: item.reason })),
  ]
  // Shadowed files are fine files: only a root with nothing usable at all is unavailable.
  const row = { id: root.id, state: skills || shadowed.length ? 'ready' : 'unavailable', detail: parts.join('; ') } as const
  return items.length ? { ...row, items: items.slice(0, maxItems), itemsOmitted: Math.max(0, items.length - maxItems) } : row
}

/**
 * The log lines for what a scan of one root found that was not said before (`said` remembers):
 * one line per file, or, past a handful, one line for all of them, so a root full of notes that are
 * not skills cannot flood the log.
 */
export function newDiagnostics(report: RootReport, said: Set<string>): string[] {
  const lines: string[] = []
  if (report.unlooked) {
    const line = `skill root ${report.root.path}: ${unlookedNote(report.unlooked)}`
    if (!said.has(line)) lines.push(line)
    said.add(line)
  }
  return [...lines, ...fileDiagnostics(report, said)]
}

/** What a root whose entries passed `maxRootEntries` did not offer. */
function unlookedNote(unlooked: number): string {
  return `${count(unlooked)} more folders and .md files not looked at (past maxRootEntries, in name order): skills among them are not offered`
}

function fileDiagnostics(report: RootReport, said: Set<string>): string[] {
  const fresh: { item: Rejection; what: string }[] = []
  for (const [items, what] of [[report.rejected, 'rejected'], [report.warnings, 'loaded with a warning']] as const) {
    for (const item of items) {
      const key = `${item.path}\0${item.reason}`
      if (said.has(key)) continue
      said.add(key)
      fresh.push({ item, what })
    }
  }
  if (fresh.length <= LISTED) return fresh.map(({ item, what }) => `skill file ${item.path} ${what}: ${item.reason}`)
  const [{ item }] = fresh as [(typeof fresh)[number]]
  return [`skill root ${report.root.path}: ${count(fresh.length)} files rejected or loaded with a warning (the first: ${relative(report.root.path, item.path)}: ${item.reason}); dsh status names the first ${LISTED}, dsh status --json all of them`]
}

/**
 * A path shown on a row, marked when its name is not in NFC: `café/` typed on one system and
 * `cafe\u0301/` (the accent a separate character, as macOS tools may write it) on another are two
 * directories that look the same and normalise to one skill name, so one shadows the other, and
 * without the mark the row read `café/SKILL.md (by café/SKILL.md)`. `--json` items keep the exact paths.
 */
function encodingNoted(path: string, shown: string): string {
  if (path === path.normalize('NFC')) return shown
  return `${shown} [${path === path.normalize('NFD') ? 'NFD' : 'not NFC'}: its accents are separate characters]`
}
