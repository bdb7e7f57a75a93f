import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BareLspClient } from './bare-lsp-client.ts'
import { bootCoding, TSSERVER } from './lsp-servers.ts'
import { ratio } from './stats.ts'

// findReferences on a minified one-line bundle with tens of thousands of matches (the twenty-first
// round's review: it ran out TOOL_TIMEOUT). Where the time goes: the same request by a bare
// vscode-jsonrpc client on its own tsserver, then through `ctx.tools.execute` (ours: the 6 MB answer
// parsed, 100 locations kept with line text, rendered), with our process's CPU for the call.
//   node packages/cli/cli/bin/run-ts.mjs bench/lsp-huge-references.ts [uses=30000] [rounds=3]

const USES = Number(process.argv[2] ?? 30_000)
const ROUNDS = Number(process.argv[3] ?? 3)
const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-huge-')))
let text = 'var q=0;function f(a,b){return a+b.length}'
for (let index = 0; index < USES; index++) text += `q=f(q,"pad${String(index).padStart(14, 'x')}");`
writeFileSync(join(root, 'min.js'), text)
writeFileSync(join(root, 'jsconfig.json'), '{"compilerOptions":{"allowJs":true,"checkJs":false}}')
console.log(`min.js: ${text.length} characters on one line, ${2 * USES + 1} references to q`)
try {
  const bare: number[] = []
  const client = new BareLspClient(TSSERVER.executable, TSSERVER.args, root, { initializationOptions: TSSERVER.initializationOptions })
  await client.initialize()
  for (let round = 0; round <= ROUNDS; round++) {
    const start = performance.now()
    const answer = (await client.query('textDocument/references', 'min.js', 'javascript', 0, 4)) as unknown[]
    if (round) bare.push(performance.now() - start)
    console.log(`bare ${round ? `round ${round}` : 'cold'}: ${(performance.now() - start).toFixed(0)} ms, ${answer.length} locations`)
  }
  await client.close()
  const ours: number[] = []
  const host = await bootCoding()
  const session = host.app.sessions.create({ cwd: root })
  for (let round = 0; round <= ROUNDS; round++) {
    const start = performance.now()
    const cpu = process.cpuUsage()
    const result = await host.app.tools.execute({ name: 'lsp', arguments: { operation: 'findReferences', filePath: 'min.js', line: 1, character: 5 }, session })
    const used = process.cpuUsage(cpu)
    if (result.isError) throw new Error(`${result.error.code}: ${result.error.message}`)
    if (round) ours.push(performance.now() - start)
    const shown = (result.content[0] as { text: string }).text
    console.log(`ours ${round ? `round ${round}` : 'cold'}: ${(performance.now() - start).toFixed(0)} ms, our CPU ${((used.user + used.system) / 1000).toFixed(0)} ms, ${shown.length} characters shown`)
  }
  await host.stop()
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  console.log(`warm median: ours ${median(ours).toFixed(0)} ms, bare ${median(bare).toFixed(0)} ms, ${ratio(median(ours), median(bare))}`)
} finally {
  rmSync(root, { recursive: true, force: true })
}
