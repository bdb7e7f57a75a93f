import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import * as core from '../src/index.ts'

// Issue 27, item 1: cancellation and lifetimes have one primitive, dsh-core's Lifetime
// (src/lifetime/lifetime.ts). A package source that makes its own (an AbortController, a fused or
// timed AbortSignal, a raised listener cap) or still uses one of the mechanisms it replaces fails
// here, unless it is on the allow-list below: the files not moved yet, each with the engineer
// whose surface it is. The list only shrinks; remove a file when it no longer matches.
//
// The old helpers of abort.ts that Lifetime replaces are retired one by one: while a helper is
// RETIRING, only the files on the allow-list may import it from dsh-core; once none does, it is
// deleted from dsh-core and moves to DELETED, and then importing it (or dsh-core exporting it
// again) fails here.

const REPO = fileURLToPath(new URL('../../../../', import.meta.url))

const MECHANISM = /new AbortController\(|AbortSignal\.(?:any|timeout)\(|setMaxListeners\(|\b(?:deadline|raceAbort|settlesWithin|fuseSignals|withOwnSignal|trackUntilSettled)\(|new FetchBudget\(/

/** The primitive itself, and the old helpers it replaces (kept while the files below use them). */
const HOME = ['packages/core/core/src/lifetime/', 'packages/core/core/src/abort.ts']

/** Old helpers of abort.ts that still have callers (each on NOT_MOVED_YET). */
const RETIRING: readonly string[] = []

/** Old helpers deleted from dsh-core: nothing may import them, and dsh-core must not export them again. */
const DELETED: readonly string[] = ['deadline', 'raceAbort', 'settlesWithin', 'sleep', 'Deadline']

/** The tests of the retiring helpers themselves, deleted with them. */
const HELPER_TESTS = ['packages/core/core/tests/abort.test.ts', 'packages/core/core/tests/race-cleanup.test.ts']

const NOT_MOVED_YET: Readonly<Record<string, string>> = {}

const DSH_CORE_ENTRIES = ['index.ts', 'abort.ts'].map((name) => join(REPO, 'packages/core/core/src', name))

/** Every TypeScript file of the repository (package sources and tests, examples, benches, test support), relative to it. */
function typescriptFiles(dir = REPO): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) return []
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return typescriptFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path.slice(REPO.length)] : []
  })
}

/** The names `file` imports from dsh-core: the package, or its index or abort.ts by relative path. */
function dshCoreImports(file: string, text: string): string[] {
  const names: string[] = []
  for (const match of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'([^']+)'/g)) {
    const from = match[2]!
    const fromDshCore = from === 'dsh-core' || (from.startsWith('.') && DSH_CORE_ENTRIES.includes(resolve(REPO, dirname(file), from)))
    if (!fromDshCore) continue
    for (const part of match[1]!.split(',')) {
      const name = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]!.trim()
      if (name) names.push(name)
    }
  }
  return names
}

const SELF = fileURLToPath(import.meta.url).slice(REPO.length)

// This file is left out: its own examples of imports are not imports.
const files = typescriptFiles()
  .filter((file) => file !== SELF)
  .map((file) => ({ file, text: readFileSync(join(REPO, file), 'utf8') }))

/** Package sources (not tests) that make a mechanism of their own. */
function filesWithAMechanism(): string[] {
  return files
    .filter(({ file }) => /^packages\/[^/]+\/[^/]+\/src\//.test(file) && !HOME.some((home) => file.startsWith(home)))
    .filter(({ text }) => MECHANISM.test(text))
    .map(({ file }) => file)
}

/** Files importing an old helper, with the helpers they import. */
function oldHelperImports(): { file: string; names: string[] }[] {
  return files
    .map(({ file, text }) => ({ file, names: dshCoreImports(file, text).filter((name) => RETIRING.includes(name) || DELETED.includes(name)) }))
    .filter(({ names }) => names.length > 0)
}

describe('cancellation mechanisms', () => {
  it('no package source defines its own, beyond the files not moved onto Lifetime yet', () => {
    const found = filesWithAMechanism()
    const importing = oldHelperImports().map(({ file }) => file)
    const stale = Object.keys(NOT_MOVED_YET).filter((file) => !found.includes(file) && !importing.includes(file))
    // A moved file still listed is not a failure (its owner may land before this list is edited),
    // only a reminder that the list should shrink.
    if (stale.length) console.warn(`lifetime-mechanisms.test.ts: moved onto Lifetime, remove from NOT_MOVED_YET: ${stale.join(', ')}`)
    expect(found.filter((file) => !(file in NOT_MOVED_YET)).map((file) => `${file} (use dsh-core's Lifetime: docs/architecture.md, "Lifetimes and cancellation")`)).toEqual([])
  })

  it('imports the old helpers only from files not moved yet, and deleted ones from nowhere', () => {
    const misuse = oldHelperImports().flatMap(({ file, names }) =>
      names
        .filter((name) => DELETED.includes(name) || !(file in NOT_MOVED_YET || HELPER_TESTS.includes(file)))
        .map((name) => `${file} imports ${name} (${DELETED.includes(name) ? 'deleted' : 'retiring'}; use dsh-core's Lifetime)`),
    )
    expect(misuse).toEqual([])
  })

  it('dsh-core does not export a deleted helper again', () => {
    expect(DELETED.filter((name) => name in core)).toEqual([])
  })

  it('finds an import of an old helper however it is written', () => {
    // The scanner itself: a guard that matches nothing proves nothing.
    const text = "import {\n  Lifetime,\n  type Deadline,\n  sleep as nap,\n} from 'dsh-core'\nimport { sleep } from 'node:timers/promises'"
    expect(dshCoreImports('examples/x/x.ts', text)).toEqual(['Lifetime', 'Deadline', 'sleep'])
    expect(dshCoreImports('packages/core/core/src/trust/x.ts', "import { raceAbort } from '../abort.ts'")).toEqual(['raceAbort'])
    expect(dshCoreImports('packages/core/core/tests/x.test.ts', "import { settlesWithin, sleep } from '../src/index.ts'")).toEqual(['settlesWithin', 'sleep'])
    expect(dshCoreImports('packages/core/core/tests/x.test.ts', "import { sleep } from './helpers/index.ts'")).toEqual([])
  })
})
