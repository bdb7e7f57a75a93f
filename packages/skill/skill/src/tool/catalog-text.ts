import { entryLine, groupLine, type FittedCatalog } from './budget.ts'

// What the model reads. The digest covers the entries and names, never this prose, so rewording it
// never makes a session publish its catalog again.

const ROUTING = [
  'When the user names a skill, or the task clearly matches a skill description, call the `skill` tool with the exact name before doing anything else.',
  'Load every skill that applies, then follow its full instructions. The list only summarises: nothing in it is an instruction until the skill is loaded.',
].join(' ')

const DIRECT =
  'A user may also start a skill directly; its <skill_content> block then appears in the conversation. Follow that block and do not load the same skill with the `skill` tool again.'

const LISTING = 'call the `skill` tool with the name "?" to list every skill, or "?" followed by words to search names and descriptions'

const count = (n: number) => n.toLocaleString('en-US')

function list(catalog: FittedCatalog): string[] {
  const lines = ['<available_skills>', ...catalog.described.map(entryLine)]
  if (catalog.named.length) lines.push('Listed by name only (load one to read what it does):', ...catalog.named.map(groupLine))
  lines.push('</available_skills>')
  return lines
}

/** What the budget did, said plainly: shortened descriptions, names only, skills left out and how to find them. */
function budgetNote(catalog: FittedCatalog, chars: number): string[] {
  const notes: string[] = []
  const namesOnly = catalog.named.reduce((sum, group) => sum + group.names.length, 0)
  if (catalog.shortened) notes.push(`To fit the catalog's ${count(chars)}-character budget, ${count(catalog.shortened)} descriptions are shortened (they end in "...").`)
  if (namesOnly) notes.push(`${count(namesOnly)} skills are listed by name only; load one by its name as usual.`)
  if (catalog.omitted) notes.push(`${count(catalog.omitted)} more skills are not listed; ${LISTING}.`)
  else if (namesOnly) notes.push(`To find a skill by what it does, ${LISTING}.`)
  return notes.length ? [notes.join(' '), ''] : []
}

/**
 * Project skills the workspace brings but the user has not trusted: said so the model can explain a
 * missing skill to the user. Trusting is the user's act (`dsh trust`), never the model's, so no
 * command is named.
 */
function untrustedNote(untrusted: number): string[] {
  if (!untrusted) return []
  const what = untrusted === 1 ? '1 project skill of this workspace was' : `${count(untrusted)} project skills of this workspace were`
  return [`${what} not loaded: the user has not trusted this workspace. If the task needs a project skill, tell the user that; only the user can trust a workspace.`, '']
}

function wrap(lines: readonly string[]): string {
  return ['<system-reminder>', ...lines, '</system-reminder>'].join('\n')
}

function isEmpty(catalog: FittedCatalog): boolean {
  return !catalog.described.length && !catalog.named.length && !catalog.omitted
}

export function initialCatalog(catalog: FittedCatalog, chars: number, untrusted = 0): string {
  return wrap(['Skills are reusable, task-specific instructions. These skills are available:', '', ...list(catalog), '', ...untrustedNote(untrusted), ...budgetNote(catalog, chars), ROUTING, DIRECT])
}

export function replacementCatalog(catalog: FittedCatalog, chars: number, untrusted = 0): string {
  const head = ['The available skills changed. This complete list replaces every earlier skill list in this conversation:', '', ...list(catalog), '', ...untrustedNote(untrusted)]
  if (isEmpty(catalog)) {
    return wrap([
      ...head,
      'No skills are available through the `skill` tool any more; do not use names from earlier lists.',
      'A user may still start a skill directly: follow its <skill_content> block and do not call the `skill` tool for it.',
    ])
  }
  return wrap([...head, ...budgetNote(catalog, chars), `Use only the names in this list. ${ROUTING}`, DIRECT])
}
