import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PATIENT_GO_AND_C, realSuite, valueOf, type Fixture } from './harness.ts'

// gopls answers a workspace symbol search with its best 100 matches and clangd stops at its
// --limit-results (100), neither saying there were more: with 150 functions named Item1..Item150 the
// tool said `100 symbols match "Item":` as if that were all (found driving `dsh call lsp_symbols`).
// The catalog's `workspaceSymbolLimit` names each cap; an answer of exactly that many says the list
// may be incomplete and how to narrow it.


const ITEMS = 150

const cases: { server: string; providerId: string; fixture: Fixture; prepare: (dir: string) => void; query: string; few: string }[] = [
  {
    server: 'gopls',
    providerId: 'go',
    fixture: 'go-rename',
    prepare: (dir) => writeFileSync(join(dir, 'items.go'), ['package main', ...Array.from({ length: ITEMS }, (_, i) => `func Item${i + 1}() int { return ${i + 1} }`)].join('\n') + '\n'),
    query: 'Item',
    few: 'Item149',
  },
  {
    server: 'clangd',
    providerId: 'c',
    fixture: 'c-rename',
    prepare: (dir) => {
      writeFileSync(join(dir, 'items.c'), Array.from({ length: ITEMS }, (_, i) => `int item${i + 1}(void) { return ${i + 1}; }`).join('\n') + '\n')
      // clangd indexes only the files a compilation database lists (without one it finds nothing).
      const entry = (file: string) => ({ directory: dir, file: join(dir, file), arguments: ['cc', '-c', file] })
      writeFileSync(join(dir, 'compile_commands.json'), JSON.stringify([entry('items.c'), entry('shapes.c'), entry('main.c')]))
    },
    query: 'item',
    few: 'item149',
  },
]

for (const c of cases) {
  describe(`lsp_symbols when ${c.server} stops at its cap (real server)`, () => {
    const suite = realSuite(c.fixture, { overlay: PATIENT_GO_AND_C, prepare: c.prepare })
    const search = (query: string) => suite.host.app.tools.execute({ name: 'lsp_symbols', arguments: { query }, session: suite.host.app.sessions.create({ cwd: suite.dir }) })

    it('says a list of exactly the cap may be incomplete, and how to narrow the query', async () => {
      // clangd's background index fills after the handshake: ask until it has every function.
      let result = await search(c.query)
      for (let attempt = 0; attempt < 60 && valueOf(result).total < 100; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 500))
        result = await search(c.query)
      }
      const value = valueOf(result)
      expect(value.total).toBe(100)
      expect(value.capped).toEqual([{ providerId: c.providerId, limit: 100 }])
      const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
      expect(text).toContain(`100 or more symbols match ${JSON.stringify(c.query)}:`)
      expect(text).toContain(`(${c.providerId} gives at most 100 matches and gave 100: the list may be incomplete. Narrow the query`)
    })

    it('says nothing of a cap under it', async () => {
      const result = await search(c.few)
      const value = valueOf(result)
      expect(value.total).toBeGreaterThan(0)
      expect(value.total).toBeLessThan(100)
      expect(value.capped).toBeUndefined()
      const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
      expect(text).not.toContain('may be incomplete')
    })
  })
}
