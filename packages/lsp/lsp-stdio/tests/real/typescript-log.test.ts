// [PROC] TypeScript 7's own server logs every request it handles at Info (`window/logMessage`:
// about nine per change, each a message our process reads, decodes and hands on: about 13 of
// vscode-jsonrpc's promises apiece). The native launch asks for warnings and errors only
// (`initializationOptions.logVerbosity`), so a change costs its own messages and no log (issue 27
// item 2, diagnostics after a change). Against the real server, counted, not timed.
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { trustCommand, type TrustDecider, type Workspace } from 'dsh-core'
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node'
import { afterEach, describe, expect, it } from 'vitest'
import { ServerConfig } from '../../src/config.ts'
import { TypescriptLauncher } from '../../src/typescript.ts'
import { cleanupRigs, tempDir } from '../fixtures/rig.ts'

afterEach(cleanupRigs)

const TYPESCRIPT_7 = realpathSync(fileURLToPath(new URL('../../node_modules/typescript-7', import.meta.url)))
const FIXTURE = fileURLToPath(new URL('../../../tool-lsp/tests/real/workspaces/ts-capabilities', import.meta.url))

const TRUSTED: TrustDecider = { decide: async (directory) => ({ trusted: true, directory, by: 'hook', command: trustCommand(directory) }) }

/**
 * The log messages the server sends while it takes one change and answers its diagnostics: launched
 * as the native launch says, with its `initializationOptions` (or `instead`).
 */
async function logsOfOneChange(instead?: { readonly initializationOptions: unknown }): Promise<string[]> {
  const dir = join(tempDir('dsh-ts7-log-'), 'project')
  cpSync(FIXTURE, dir, { recursive: true })
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(TYPESCRIPT_7, join(dir, 'node_modules', 'typescript'))
  const config = ServerConfig.parse({ command: 'typescript-language-server', extensionToLanguage: { '.ts': 'typescript' } })
  const launch = await new TypescriptLauncher('native', config, { executable: '/nonexistent' }, TRUSTED, null).launch({ path: dir, url: pathToFileURL(dir).href } as Workspace, new AbortController().signal)
  const { initializationOptions } = instead ?? launch
  const child = spawn(launch.executable, launch.args, { cwd: dir, stdio: ['pipe', 'pipe', 'ignore'] })
  const rpc = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin))
  const logs: string[] = []
  let counting = false
  rpc.onNotification('window/logMessage', (params: { type: number; message: string }) => void (counting && logs.push(`${params.type} ${params.message.split('\n')[0]}`)))
  rpc.onRequest(() => null)
  rpc.listen()
  try {
    await rpc.sendRequest('initialize', { processId: null, rootUri: pathToFileURL(dir).href, capabilities: { textDocument: { diagnostic: {} } }, initializationOptions })
    await rpc.sendNotification('initialized', {})
    const uri = pathToFileURL(join(dir, 'src/main.ts')).href
    const text = readFileSync(join(dir, 'src/main.ts'), 'utf8')
    await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text } })
    await rpc.sendRequest('textDocument/diagnostic', { textDocument: { uri } })
    counting = true
    await rpc.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: text.replace('text: string', 'text: number') }] })
    await rpc.sendNotification('textDocument/didSave', { textDocument: { uri } })
    const report = (await rpc.sendRequest('textDocument/diagnostic', { textDocument: { uri } })) as { items: unknown[] }
    expect(report.items.length).toBeGreaterThan(0)
    // Whatever the server logs about the change follows its answer closely: a later request's answer comes after it.
    await rpc.sendRequest('textDocument/diagnostic', { textDocument: { uri } })
    counting = false
    return logs
  } finally {
    rpc.dispose()
    child.kill()
  }
}

describe('TypeScript 7 launched natively (real server)', () => {
  it('logs nothing at Info for a change: warnings and errors only', async () => {
    expect(await logsOfOneChange()).toEqual([])
  }, 60_000)

  it('the server itself logs each request at Info when not asked otherwise (what the option saves)', async () => {
    expect((await logsOfOneChange({ initializationOptions: null })).filter((line) => line.startsWith('3 ')).length).toBeGreaterThan(3)
  }, 60_000)
})
