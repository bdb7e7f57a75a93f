import { describe, expect, it } from 'vitest'
import { realSuite, valueOf } from './harness.ts'

// A workspace search goes to every provider at once, and the catalog has eleven (presets/overlays/
// languages.yml). Each provider's call listened on the caller's one signal: the eleventh listener
// made Node print a MaxListenersExceededWarning ("Possible EventTarget memory leak detected") on
// every lsp_symbols query (found driving `dsh call lsp_symbols` with the languages overlay).
describe('a workspace search over the whole catalog (real tsserver, every catalog row)', () => {
  const suite = realSuite('ts-symbols', {
    overlay: `
- id: lsp-stdio
  config:
    catalog: all
    servers:
      typescript: { diagnosticsWaitMs: 240000, indexingTimeoutMs: 240000 }
- id: tool-lsp
  config:
    timeoutMs: 600000
`,
  })

  it('answers without a listener warning', async () => {
    const warnings: string[] = []
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`)
    process.on('warning', onWarning)
    try {
      const controller = new AbortController()
      const result = await suite.host.app.tools.execute({ name: 'lsp_symbols', arguments: { query: 'area' }, session: suite.host.app.sessions.create({ cwd: suite.dir }), signal: controller.signal })
      expect(valueOf(result).total).toBeGreaterThan(0)
      // Warnings are emitted on a later tick.
      await new Promise((resolve) => setTimeout(resolve, 50))
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings.filter((warning) => warning.startsWith('MaxListenersExceededWarning'))).toEqual([])
  })
})
