import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { bootPreset, type Host, type Session, type ToolResult } from 'dsh-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { dsh, json, killRunning, ROOT } from '../../../packages/cli/cli/tests/helpers.ts'

// bash-language-server added by config only: the coding preset plus examples/lsp-server/overlay.yml,
// booted exactly as `dsh` boots it, asked about the shell project beside the overlay.

const OVERLAY = join(ROOT, 'examples', 'lsp-server', 'overlay.yml')
const PROJECT = join(ROOT, 'examples', 'lsp-server', 'project')
const CODING = join(ROOT, 'presets', 'coding.yml')

type Args = { operation: 'hover' | 'goToDefinition' | 'findReferences'; filePath: string; line: number; symbol: string }

describe('bash-language-server through the overlay', () => {
  let host: Host
  let session: Session

  const lsp = (args: Args): Promise<ToolResult> => host.app.tools.execute({ name: 'lsp', arguments: args, session })
  const text = async (args: Args): Promise<string> => {
    const result = await lsp(args)
    if (result.isError) throw new Error(`lsp failed: ${result.error.code}: ${result.error.message}`)
    return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
  }

  beforeAll(async () => {
    host = await bootPreset({ preset: CODING, overlays: [OVERLAY] })
    session = host.app.sessions.create({ cwd: PROJECT })
  })

  let serverPid: number | undefined

  afterAll(async () => {
    await host?.stop()
    if (serverPid !== undefined) expect(alive(serverPid), 'the server outlived host.stop()').toBe(false)
  })

  it('the first query starts the pinned bash-language-server from node_modules in the project, and is answered', async () => {
    expect(await text({ operation: 'goToDefinition', filePath: 'deploy.sh', line: 10, symbol: 'trim' })).toContain('lib/text.bash:5:1  trim() {')
    const rows = await host.app.readiness.report()
    const detail = rows.find((row) => row.surface === 'lsp' && row.id === 'bash')?.detail ?? ''
    serverPid = Number(/^bash-language-server, pid (\d+), workspace /.exec(detail)?.[1])
    expect(alive(serverPid), detail).toBe(true)
    expect(readFileSync(`/proc/${serverPid}/cmdline`, 'utf8')).toContain(join(ROOT, 'node_modules'))
    expect(realpathSync(`/proc/${serverPid}/cwd`)).toBe(PROJECT)
  })

  it('hover on a call shows the function and the comment above its definition in another file', async () => {
    expect(await text({ operation: 'hover', filePath: 'deploy.sh', line: 13, symbol: 'log_info' })).toBe(
      'hover at deploy.sh:13:1 (symbol "log_info")\nFunction: **log_info** - *defined in lib/log.sh*\n\n```txt\nPrints a timestamped message to stderr.\nUsage: log_info <message>...\n```',
    )
  })

  it('goToDefinition follows `source` into a .bash file', async () => {
    const result = await lsp({ operation: 'goToDefinition', filePath: 'deploy.sh', line: 10, symbol: 'trim' })
    expect(result.isError).toBe(false)
    expect(result.isError ? undefined : result.value).toMatchObject({
      kind: 'locations',
      complete: true,
      // The value's ranges are the server's, zero-based; the text below is one-based.
      locations: [{ path: 'lib/text.bash', range: { start: { line: 4, character: 0 } }, lineText: 'trim() {' }],
    })
  })

  it('findReferences from the .bash definition finds the call in the .sh script', async () => {
    expect(await text({ operation: 'findReferences', filePath: 'lib/text.bash', line: 5, symbol: 'trim' })).toBe(
      'findReferences at lib/text.bash:5:1 (symbol "trim")\ndeploy.sh:10:11  target="$(trim "${1:-}")"\nlib/text.bash:5:1  trim() {',
    )
  })

  it('findReferences of die lists the definition and the call', async () => {
    expect(await text({ operation: 'findReferences', filePath: 'deploy.sh', line: 11, symbol: 'die' })).toBe(
      'findReferences at deploy.sh:11:23 (symbol "die")\ndeploy.sh:11:23  [[ -n "$target" ]] || die "usage: deploy.sh <environment>"\nlib/log.sh:11:1  die() {',
    )
  })
})

describe('dsh status with the overlay', () => {
  afterEach(() => killRunning())

  it('the first query of a fresh server is answered (one-shot dsh call; README: "The first query")', async () => {
    const run = await dsh(['call', 'lsp', JSON.stringify({ operation: 'goToDefinition', filePath: 'deploy.sh', line: 10, symbol: 'trim' }), '--config', OVERLAY, '--cwd', PROJECT])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('lib/text.bash:5:1  trim() {')
  })

  it('shows a bash row beside the preset servers, and stops the server when dsh exits', async () => {
    const run = await dsh(['status', '--json', '--config', OVERLAY, '--cwd', PROJECT])
    expect(run.code, run.stderr).toBe(0)
    const rows = json<{ capabilities: { surface: string; id: string; state: string; detail: string }[] }>(run).capabilities.filter((row) => row.surface === 'lsp')
    expect(rows.map((row) => row.id)).toEqual(['bash', 'python', 'typescript'])
    const bash = rows[0]!
    // A one-shot status sees the server as it is: its background analysis (logProgress) may still run.
    expect(['ready', 'indexing']).toContain(bash.state)
    const match = /^(?:background analysis \()?bash-language-server, pid (\d+), workspace ([^)]+?)\)? \[\.sh \.bash\]$/.exec(bash.detail)
    expect(match, bash.detail).not.toBeNull()
    expect(match![2]).toBe(PROJECT)
    expect(alive(Number(match![1]))).toBe(false)
  })
})

/** A process that has exited and been reaped has no /proc entry. */
function alive(pid: number): boolean {
  return existsSync(`/proc/${pid}`)
}
