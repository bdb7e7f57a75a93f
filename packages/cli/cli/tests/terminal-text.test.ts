// What a server or a tool says reaches a person's terminal as text, never as terminal commands: a
// real loopback HTTP "MCP server" answering 500 with escape sequences in its body (clear screen, a
// window title ending in BEL, a carriage return over the line), and a tool plugin whose result and
// progress carry the same. On a terminal `dsh status`, `dsh call`, their progress and the logs show
// them neutralised; piped, `--json` keeps the exact text (JSON escapes it).
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PassThrough, Writable } from 'node:stream'
import { Lifetime } from 'dsh-core'
import { main } from 'dsh-cli'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { holdLogConfig } from '../../../../test-support/log-config.ts'
import { CORE_ROWS, dshIn, json, removeTempDirs, tempDir } from './helpers.ts'

const HOSTILE = 'boom\u001b[2J\u001b]0;pwned\u0007\rFAKE'
/** A server's own colour sequences: concealed text, black on black, blink. Only cordis colours a log line. */
const HIDING = '\u001b[8msecret\u001b[0m \u001b[30;40mblack\u001b[0m \u001b[5mblink\u001b[0m'
/** What must not reach a terminal: ESC other than our own colours, BEL, a carriage return. */
const ACTING = /\u001b(?!\[[0-9;]*m)|\u0007|\r(?!\n)|\u009b/

let server: Server
let dir: string
let preset: string[]

beforeAll(async () => {
  server = createServer((_request, response) => {
    response.writeHead(500)
    response.end(HOSTILE)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  dir = await tempDir()
  await writeFile(
    join(dir, 'loud.mjs'),
    `export const name = 'loud'
export const inject = ['tools']
export function apply(ctx) {
  ctx.tools.register({
    name: 'loud',
    description: 'Says something hostile.',
    parameters: { type: 'object', properties: {} },
    execute: async (_args, exec) => {
      exec.progress?.({ progress: 1, message: ${JSON.stringify(HOSTILE)} })
      return { said: ${JSON.stringify(HOSTILE)} }
    },
    render: (_args, value) => value.said,
  })
}
`,
  )
  // A real stdio MCP server that says something in colour on its stderr and exits before its handshake.
  await writeFile(join(dir, 'hiding-server.mjs'), `process.stderr.write(${JSON.stringify(HIDING)} + '\\n'); process.exitCode = 1\n`)
  const rows = [
    CORE_ROWS,
    '- id: loud\n  name: ./loud.mjs\n',
    `- id: mcp-s\n  name: dsh-mcp\n  config: { serverName: s, transport: stdio, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(join(dir, 'hiding-server.mjs'))}], startupTimeoutMs: 20000, reconnect: { enabled: false } }\n`,
    `- id: mcp-h\n  name: dsh-mcp\n  config: { serverName: h, transport: streamable-http, url: 'http://127.0.0.1:${port}/mcp', oauth: false, startupTimeoutMs: 20000, reconnect: { enabled: false } }\n`,
  ]
  await writeFile(join(dir, 'preset.yml'), rows.join(''))
  preset = ['--preset', join(dir, 'preset.yml'), '--cwd', dir]
}, 60_000)

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  await removeTempDirs()
})

/** `dsh <args>` in this worker with stdout and stderr that say they are a terminal: what each showed. */
async function onTerminal(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const screen = () => {
    let text = ''
    const stream = Object.assign(
      new Writable({
        write(chunk: Buffer | string, _encoding, done) {
          text += chunk.toString()
          done()
        },
      }),
      { isTTY: true },
    )
    return { stream, text: () => text }
  }
  const stdout = screen()
  const stderr = screen()
  const release = holdLogConfig()
  try {
    const code = await main(args, { stdin: new PassThrough(), stdout: stdout.stream, stderr: stderr.stream, cwd: dir, env: { ...process.env, DSH_HOME: dir, ...extraEnv } }, new Lifetime().signal)
    return { code, stdout: stdout.text(), stderr: stderr.text() }
  } finally {
    release()
  }
}

describe('a hostile text on a terminal', () => {
  it('dsh call: the result and its progress are shown without their control characters', async () => {
    const run = await onTerminal(['call', 'loud', '{}', ...preset])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('boom')
    expect(run.stdout).toContain('FAKE')
    expect(run.stdout).not.toMatch(ACTING)
    expect(run.stderr).toContain('FAKE')
    expect(run.stderr).not.toMatch(ACTING)
  })

  it('dsh status: the server\'s answer in the row and in the log is shown without its control characters', async () => {
    const run = await onTerminal(['status', ...preset])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('HTTP 500: boom')
    expect(run.stdout).not.toMatch(ACTING)
    expect(run.stderr).toContain('HTTP 500: boom')
    expect(run.stderr).not.toMatch(ACTING)
  })

  it('dsh status: a stdio server\'s colour sequences on its stderr lose their escapes in the log; cordis\'s own colours stay', async () => {
    const run = await onTerminal(['status', ...preset])
    expect(run.code, run.stderr).toBe(0)
    const line = run.stderr.split('\n').find((text) => text.includes('secret'))
    expect(line, run.stderr).toBeDefined()
    expect(line).toContain('black')
    expect(line).not.toMatch(/\u001b\[(?:8|30;40|5)m/)
    // The record's label is still coloured by cordis: an SGR before the plugin's name.
    expect(line).toMatch(/^\[[A-Z]\] \u001b\[3[0-9;]*m/)
  })

  it('a terminal that has no colours (TERM=dumb) or a user who wants none (NO_COLOR) gets no escape at all in the log', async () => {
    for (const env of [{ TERM: 'dumb' }, { NO_COLOR: '1' }]) {
      const run = await onTerminal(['status', ...preset], env)
      expect(run.code, run.stderr).toBe(0)
      expect(run.stderr).toContain('secret')
      expect(run.stderr, JSON.stringify(env)).not.toContain('\u001b')
    }
  })

  it('piped with --json the text is exact', async () => {
    const run = await dshIn(['call', 'loud', '{}', '--json', ...preset], { env: { DSH_HOME: dir } })
    expect(run.code, run.stderr).toBe(0)
    expect(json<{ value: { said: string } }>(run).value.said).toBe(HOSTILE)
  })
})
