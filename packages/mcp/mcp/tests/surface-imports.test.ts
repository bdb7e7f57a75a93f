// Surfaces stay independent (DESIGN §2): dsh-mcp imports the host (dsh-core) and the skill seam
// (dsh-skill, for SEP-2640 skills), never another surface's provider or tool package.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const PACKAGE = fileURLToPath(new URL('..', import.meta.url))
const ALLOWED = new Set(['dsh-core', 'dsh-skill'])

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []))
}

it('imports no dsh package but dsh-core and the dsh-skill seam, and declares none', () => {
  const imported = new Set<string>()
  for (const file of sources(join(PACKAGE, 'src'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(/\bfrom\s+'(dsh-[a-z-]+)/g)) imported.add(`${match[1]} (${file.slice(PACKAGE.length)})`)
  }
  expect([...imported].filter((line) => !ALLOWED.has(line.split(' ')[0]!))).toEqual([])
  const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>
  const declared = ['dependencies', 'peerDependencies', 'devDependencies'].flatMap((field) => Object.keys(manifest[field] ?? {})).filter((name) => name.startsWith('dsh-'))
  expect(declared.filter((name) => !ALLOWED.has(name))).toEqual([])
})
