import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { callLsp, codingSuite, serversFor, valueOf } from './harness.ts'

// typescript-language-server's default (`tsserver.useSyntaxServer: auto`) runs a second,
// partial-semantic tsserver that answers definition, references, implementation and hover until the
// full one has loaded the project; it sees only the open file, so a definition across files is the
// import line. A query that gives up waiting for the load (here at once: indexingTimeoutMs 1, what a
// machine at load 30 reaches with the default 20 s) returns what the server answered. It must be the
// full server's answer, late and right.
const IMPATIENT = `
- id: lsp-stdio
  config: { servers: { typescript: { indexingTimeoutMs: 1 } } }
`

describe('a query while tsserver loads the project (real typescript-language-server)', () => {
  const suite = codingSuite('ts-project', IMPATIENT)

  it('is answered by the full tsserver from the loaded project, not from the open file alone', async () => {
    // `new Circle(2)` in main.ts: the syntax server answers the import line (src/main.ts).
    const value = valueOf(await callLsp(suite.host, suite.session(), { operation: 'goToDefinition', filePath: 'src/main.ts', line: 4, character: 20 }))
    expect(value.locations.map((l: any) => `${l.path}:${l.range.start.line}`)).toContain('src/shapes.ts:4')
  })

  it('runs one tsserver for the workspace', async () => {
    const tsservers = (await serversFor(suite.workspace.dir)).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('tsserver.js'))
    expect(tsservers).toHaveLength(1)
  })
})
