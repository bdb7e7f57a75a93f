// Issue 32 item 5: bash-language-server indexes the workspace in the background after its handshake
// and reports no progress, so a first cross-file query used to be answered from the few files it
// had parsed so far, marked complete. Its log says when the analysis begins and ends; the catalog's
// `logProgress` makes that its readiness (the real server, many files so the analysis takes a while).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { callLsp, codingSuite, valueOf } from './harness.ts'

// Under bash-language-server's backgroundAnalysisMaxFiles (500).
const FILES = 400
/** The shell row with patience for a cold start on a loaded machine (a failure guard, like the other real suites). */
const SHELL_OVERLAY = `- id: lsp-stdio
  config:
    catalog: [typescript, python, shell]
    servers: { shell: { indexingTimeoutMs: 240000 } }
`

function manyScripts(dir: string): void {
  mkdirSync(join(dir, 'scripts'), { recursive: true })
  writeFileSync(join(dir, 'lib.sh'), 'greet() {\n  echo "hello $1"\n}\n')
  for (let index = 1; index <= FILES; index++) writeFileSync(join(dir, 'scripts', `use${index}.sh`), `#!/bin/bash\nsource ../lib.sh\ngreet user${index}\n`)
}

describe('bash-language-server: readiness follows its background analysis (real server)', () => {
  const suite = codingSuite('catalog', SHELL_OVERLAY, (dir) => manyScripts(join(dir, 'shell-many')))

  it('the first references query on a cold server finds the uses in every file, complete', async () => {
    const value = valueOf(await callLsp(suite.host, suite.session(join(suite.workspace.dir, 'shell-many')), { operation: 'findReferences', filePath: 'lib.sh', line: 1, character: 1 }))
    expect(value.complete).toBe(true)
    // the declaration and one use in each script (the tool keeps the first maxLocations, and counts all)
    expect(value.total).toBe(FILES + 1)
  })
})
