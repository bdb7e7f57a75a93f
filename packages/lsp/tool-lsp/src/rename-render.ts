import type { RenameValue } from './rename-value.ts'
import { boundLines } from './text-bound.ts'

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`

/**
 * What the model sees: a head line (what, how many edits in how many files, previewed or
 * written), then per file its changed lines before (`-`) and after (`+`), then, once applied, the
 * errors the servers report in the changed files. Past `maxResultChars` the preview's last lines
 * are left out and counted; the head and what follows the preview (file operations, indexing,
 * the errors after a write) are always shown.
 */
export function renderRename(value: RenameValue, limits: { readonly maxResultChars: number }): string {
  const what = `${JSON.stringify(value.oldName)} → ${JSON.stringify(value.newName)}`
  const size = `${plural(value.totalEdits, 'edit')} in ${plural(value.files.length, 'file')}`
  const head = [value.applied ? `Renamed ${what}: ${size} written.` : `Rename ${what}: ${size} (preview; nothing written: call again with apply: true to write them).`]
  if (value.askedAt) head.push(`(${value.askedAt.note})`)
  if (value.namedAlready) {
    const places = value.namedAlready.map((place) => `${place.path}:${place.line}`).join(', ')
    head.push(`(${JSON.stringify(value.newName)} is already a name at ${places}: check that the renamed uses do not now collide with it, or pick another newName)`)
  }
  const lines: string[] = []
  for (const file of value.files) {
    lines.push(`${file.path} (${plural(file.edits, 'edit')})`)
    for (const line of file.lines) lines.push(`  ${line.line}: - ${line.before}`, `  ${' '.repeat(String(line.line).length)}  + ${line.after}`)
    const omitted = file.lineCount - file.lines.length
    if (omitted > 0) lines.push(`  \u2026 ${plural(omitted, 'more changed line')} not shown`)
  }
  const body = lines.splice(0)
  for (const operation of value.fileOperations) {
    lines.push(operation.kind === 'rename' ? `also renames the file ${operation.oldPath} to ${operation.newPath}` : `also ${operation.kind === 'create' ? 'creates' : 'deletes'} the file ${operation.path}`)
  }
  if (!value.complete) lines.push('(the language server was still indexing: uses may be missing; ask again before applying)')
  if (value.diagnostics) {
    const broken = value.diagnostics.filter((file) => file.errors > 0)
    if (!broken.length && value.diagnostics.length) lines.push(`No errors in the changed files after the rename.`)
    for (const file of broken) {
      lines.push(`${file.path}: ${plural(file.errors, 'error')} after the rename`)
      for (const first of file.first) lines.push(`  ${first}`)
    }
    const unsure = value.diagnostics.filter((file) => !file.complete).map((file) => file.path)
    if (unsure.length) lines.push(`(the language server had not finished with ${unsure.join(', ')}: errors may be missing; check with lsp_diagnostics)`)
  }
  for (const skipped of value.diagnosticsSkipped ?? []) lines.push(`not checked: ${skipped.path} (${skipped.reason})`)
  const omitted = (dropped: number) => (dropped ? `  \u2026 ${plural(dropped, 'more line')} of the preview not shown (limit ${limits.maxResultChars} characters)` : undefined)
  return boundLines({ head, body, omitted, tail: lines }, limits.maxResultChars, 'rename')
}
