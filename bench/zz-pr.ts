import { checkProviderResult } from '../packages/lsp/tool-lsp/src/provider-result.ts'
import { LspToolValue } from '../packages/lsp/tool-lsp/src/output.ts'
const r = () => ({ kind: 'locations', locations: [{ uri: 'file:///tmp/x/src/shapes.ts', range: { start: { line: 4, character: 13 }, end: { line: 4, character: 19 } } }], resolvedWorkspaceUri: 'file:///tmp/x', complete: true })
const v = { kind: 'locations', resolvedWorkspaceUri: 'file:///tmp/x', complete: true, total: 1, truncated: false, locations: [{ uri: 'file:///tmp/x/src/shapes.ts', path: 'src/shapes.ts', range: { start: { line: 4, character: 13 }, end: { line: 4, character: 19 } }, lineText: 'export class Circle implements Shape {' }] }
for (const [name, f] of [['checkProviderResult', () => checkProviderResult(r())], ['output safeParse', () => LspToolValue.safeParse(v)], ['alloc only', () => r()]] as const) {
  for (let i = 0; i < 20000; i++) f()
  const t = performance.now(); const N = 100000
  for (let i = 0; i < N; i++) f()
  console.log(name, ((performance.now() - t) / N * 1000).toFixed(2), 'µs')
}
