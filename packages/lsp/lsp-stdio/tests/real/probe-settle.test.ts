import { describe, expect, it } from 'vitest'
import { codingSuite } from './harness.ts'

// pyright answers its handshake about a second before its log says it found the workspace's source
// files, and the row counts as indexing until then (its `logProgress`). `dsh status` probed and
// reported at once, so on a small repository it read `indexing (finding source files)` (the pack
// check had to accept either state). The probe now waits, up to the row's `probeSettleMs`, for the
// work to end before it reports. The budget here is a failure guard for a loaded machine, not a
// pass condition: the test asks only which state the report reads.
describe('dsh status on a small Python workspace (real pyright)', () => {
  const suite = codingSuite(
    'py-project',
    `
- id: lsp-stdio
  config:
    servers:
      python: { probeSettleMs: 240000 }
`,
  )

  it('reads ready once pyright has found its source files, not indexing', async () => {
    const rows = await suite.host.app.readiness.report({ probe: true, cwd: suite.workspace.dir })
    const python = rows.find((row) => row.surface === 'lsp' && row.id === 'python')
    expect(python?.state).toBe('ready')
    expect(python?.detail).toMatch(/^pyright-langserver/)
  })
})
