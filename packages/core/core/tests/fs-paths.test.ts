import { posix } from 'node:path'
import { describe, expect, it } from 'vitest'
import { plainContains, resolvedIn } from '../src/fs/paths.ts'

// fs/paths.ts answers plain spellings as strings; every answer must be the one node:path gives.
const bases = ['/', '/a', '/a/b', '/a/b/', '/a//b', '/a/./b', '/a/../b', '/.a', '/a/.b', 'a', '', '.']
const names = ['x', 'x/y', 'x/y/z.ts', '.x', 'x/.y', 'x/../y', './x', '../x', 'x//y', 'x/', '', '.', '..', '/abs', '/abs/../x', '..x', 'x..', 'x/..y', '/', '/abs/x.ts', '/abs/', '//abs', '/abs//x', '/abs/./x', '/abs/.x', '/abs/x..y', '/abs/..']

describe('fs paths', () => {
  it('resolvedIn answers as path.resolve', () => {
    for (const base of bases) for (const name of names) expect([base, name, resolvedIn(base, name)]).toEqual([base, name, posix.resolve(base, name)])
  })

  it('plainContains answers as path.relative where it answers at all', () => {
    const byRelative = (parent: string, child: string) => {
      const rel = posix.relative(parent, child)
      return rel === '' || (!posix.isAbsolute(rel) && rel !== '..' && !rel.startsWith('../'))
    }
    const paths = ['/', '/a', '/a/b', '/a/bc', '/a/b/c', '/a/b..c', '/ab', '/x/b', '/a/b/..', '/a/b/.c', '/a/b/']
    let answered = 0
    for (const parent of paths) {
      for (const child of paths) {
        const plain = plainContains(parent, child)
        if (plain === undefined) continue
        answered++
        expect([parent, child, plain]).toEqual([parent, child, byRelative(parent, child)])
      }
    }
    expect(answered).toBeGreaterThan(40)
  })
})
