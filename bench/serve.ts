import { cpSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { bootPreset } from 'dsh-core'
import { ms, percentile, ratio, timed } from './stats.ts'

// The added cost of the MCP hop: an `lsp` hover from an SDK client through `dsh serve --preset coding`
// against the same hover through `ctx.tools.execute` in process (each side with its own warm server
// on its own copy of the project), interleaved call by call.

const REPO = fileURLToPath(new URL('../', import.meta.url))
const FIXTURE = join(REPO, 'packages/lsp/lsp-stdio/tests/real/workspaces/ts-project')
const BIN = join(REPO, 'packages/cli/cli/bin/dsh.mjs')
const CALLS = Number(process.env.BENCH_SERVE_CALLS ?? 300)
const HOVER = { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 20 }

function workspaceCopy(): { dir: string; remove(): void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-serve-')))
  const dir = join(root, 'ts-project')
  cpSync(FIXTURE, dir, { recursive: true })
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) }
}

export async function benchServe(): Promise<string[]> {
  const served = workspaceCopy()
  const local = workspaceCopy()
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--preset', 'coding', '--cwd', served.dir], stderr: 'ignore' })
  const client = new Client({ name: 'bench-serve', version: '0' })
  const host = await bootPreset({ preset: join(REPO, 'presets/coding.yml') })
  const { tools, sessions } = { tools: host.app.tools, sessions: host.app.sessions }
  const session = sessions.create({ cwd: local.dir })
  try {
    await client.connect(transport)
    const viaServe = async () => {
      const result = await client.callTool({ name: 'lsp', arguments: HOVER })
      if (result.isError) throw new Error(`serve: ${JSON.stringify(result.content)}`)
    }
    const inProcess = async () => {
      const result = await tools.execute({ name: 'lsp', arguments: HOVER, session })
      if (result.isError) throw new Error(`in process: ${result.error.code} ${result.error.message}`)
    }
    for (let i = 0; i < 20; i++) await Promise.all([viaServe(), inProcess()])
    const serveSamples: number[] = []
    const localSamples: number[] = []
    for (let i = 0; i < CALLS; i++) {
      if (i % 2) {
        serveSamples.push((await timed(viaServe))[0])
        localSamples.push((await timed(inProcess))[0])
      } else {
        localSamples.push((await timed(inProcess))[0])
        serveSamples.push((await timed(viaServe))[0])
      }
    }
    const p50 = [percentile(serveSamples, 50), percentile(localSamples, 50)] as const
    const p95 = [percentile(serveSamples, 95), percentile(localSamples, 95)] as const
    return [
      `lsp hover, ${CALLS} calls per side, interleaved; each side has its own warm typescript-language-server`,
      'side                          p50         p95',
      `through dsh serve (MCP)   ${ms(p50[0]).padStart(10)}  ${ms(p95[0]).padStart(10)}`,
      `ctx.tools.execute         ${ms(p50[1]).padStart(10)}  ${ms(p95[1]).padStart(10)}`,
      `added by the MCP hop      ${ms(p50[0] - p50[1]).padStart(10)}  ${ms(p95[0] - p95[1]).padStart(10)}   ratio p50 ${ratio(p50[0], p50[1])}, p95 ${ratio(p95[0], p95[1])}`,
    ]
  } finally {
    await client.close().catch(() => {})
    await host.stop()
    served.remove()
    local.remove()
  }
}
