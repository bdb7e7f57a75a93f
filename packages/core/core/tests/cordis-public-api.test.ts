import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// Issue 16, item 7: the host uses cordis's public API only. A private member (`events._hooks`,
// `_tasks`, …) can change in any minor cordis release, and the tools runtime read one on every call.

const PACKAGES = fileURLToPath(new URL('../../../', import.meta.url))

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

describe('cordis private members', () => {
  it('no package source reads one', () => {
    const readers = readdirSync(PACKAGES).flatMap((group) =>
      readdirSync(join(PACKAGES, group)).flatMap((name) => {
        let files: string[]
        try {
          files = sources(join(PACKAGES, group, name, 'src'))
        } catch {
          return []
        }
        return files.filter((file) => /\b(?:events|lifecycle|registry|scope|runtime)\)?\._[a-z]\w*/i.test(readFileSync(file, 'utf8')) || /\['_hooks'\]|\._hooks\b/.test(readFileSync(file, 'utf8')))
      }),
    )
    expect(readers.map((file) => file.slice(PACKAGES.length))).toEqual([])
  })
})
