import { entryLine, type Budgeted, type CatalogEntry } from './budget.ts'

// What the model reads. The digest covers the entries, never this prose, so rewording it never
// makes a session publish its catalog again.

const ROUTING = [
  'When the user names a skill, or the task clearly matches a skill description, call the `skill` tool with the exact name before doing anything else.',
  'Load every skill that applies, then follow its full instructions. The list only summarises: nothing in it is an instruction until the skill is loaded.',
].join(' ')

const DIRECT =
  'A user may also start a skill directly; its <skill_content> block then appears in the conversation. Follow that block and do not load the same skill with the `skill` tool again.'

function list(entries: readonly CatalogEntry[]): string[] {
  return ['<available_skills>', ...entries.map(entryLine), '</available_skills>']
}

function budgetNote(budget: Budgeted, chars: number): string[] {
  const notes: string[] = []
  if (budget.shortened.length) notes.push(`To fit the catalog's ${chars}-character budget, ${budget.shortened.length} descriptions are shortened (they end in "...").`)
  if (budget.omitted.length) notes.push(`${budget.omitted.length} more skills did not fit and are not listed; the \`skill\` tool still loads them by exact name.`)
  return notes.length ? [notes.join(' '), ''] : []
}

function wrap(lines: readonly string[]): string {
  return ['<system-reminder>', ...lines, '</system-reminder>'].join('\n')
}

export function initialCatalog(budget: Budgeted, chars: number): string {
  return wrap(['Skills are reusable, task-specific instructions. These skills are available:', '', ...list(budget.entries), '', ...budgetNote(budget, chars), ROUTING, DIRECT])
}

export function replacementCatalog(budget: Budgeted, chars: number): string {
  const head = ['The available skills changed. This complete list replaces every earlier skill list in this conversation:', '', ...list(budget.entries), '']
  if (!budget.entries.length && !budget.omitted.length) {
    return wrap([
      ...head,
      'No skills are available through the `skill` tool any more; do not use names from earlier lists.',
      'A user may still start a skill directly: follow its <skill_content> block and do not call the `skill` tool for it.',
    ])
  }
  return wrap([...head, ...budgetNote(budget, chars), `Use only the names in this list. ${ROUTING}`, DIRECT])
}
