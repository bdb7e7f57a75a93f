import { describe, expect, it } from 'vitest'
import { realSuite, valueOf } from './harness.ts'

// pyright answers at once after its handshake, before it has read its configuration and found the
// workspace's source files ("Found 4 source files" in its log, seconds later on a busy machine), and
// reports no progress for it: the first workspace search of a session answered "No symbols match
// "Circle"", complete (found driving `dsh call lsp_symbols`). The catalog's python row now takes
// that log line as the end of indexing, as the shell row does for bash-language-server's.
describe('a cold pyright (real server)', () => {
  const suite = realSuite('py-rename', {
    overlay: `
- id: lsp-stdio
  config:
    servers:
      python: { diagnosticsWaitMs: 240000, indexingTimeoutMs: 240000 }
- id: tool-lsp
  config:
    timeoutMs: 600000
`,
  })

  it('finds a class in another file on the first workspace search', async () => {
    const value = valueOf(await suite.host.app.tools.execute({ name: 'lsp_symbols', arguments: { query: 'Circle' }, session: suite.host.app.sessions.create({ cwd: suite.dir }) }))
    expect(value.symbols.map((symbol: { name: string; path: string }) => `${symbol.name} ${symbol.path}`)).toContain('Circle geo/shapes.py')
    expect(value.complete).toBe(true)
  })
})
