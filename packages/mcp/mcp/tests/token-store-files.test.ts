// The OAuth token store and its lock file under $DSH_HOME are read bounded and only as regular
// files: a FIFO planted in either place blocked a plain readFile for good (and the lock's wait
// spun on it), a huge file was read whole, and a store that is not JSON threw an uncoded
// SyntaxError. Now each is a coded error at once. Real files and a real FIFO (the system's mkfifo).
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { MAX_TOKEN_STORE_BYTES, TokenStore } from '../src/oauth/store.ts'
import { mkfifoSync } from '../../../lsp/lsp-stdio/tests/fixtures/mkfifo.ts'

const scratch = mkdtempSync(join(tmpdir(), 'dsh-mcp-store-files-'))
const fifos: string[] = []
afterAll(() => {
  // A reader the old code left blocked on a FIFO gets its end of file, so the worker can exit.
  for (const fifo of fifos) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))
    } catch {
      // No reader waiting (ENXIO): nothing to release.
    }
  }
  rmSync(scratch, { recursive: true, force: true })
})

const storeDir = () => mkdtempSync(join(scratch, 'store-'))

async function failure(promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await promise
  } catch (error) {
    return error as { code?: string; message: string }
  }
  throw new Error('expected a rejection')
}

const KEY = 'https://mcp.example.com/mcp *'

describe('the token store file', () => {
  it.runIf(mkfifoSync(join(scratch, 'probe.fifo')))('a FIFO in its place is MCP_TOKEN_STORE_INVALID at once, for a read and for an update', { timeout: 30_000 }, async () => {
    const dir = storeDir()
    const path = join(dir, 'mcp-credentials.json')
    expect(mkfifoSync(path)).toBe(true)
    fifos.push(path)
    const store = new TokenStore(path, { lockWaitMs: 2_000 })
    const read = await failure(store.get(KEY))
    expect(read).toMatchObject({ code: 'MCP_TOKEN_STORE_INVALID', message: `the OAuth token store ${path} cannot be read: it is not a regular file` })
    expect((await failure(store.update(KEY, () => ({ serverUrl: 'https://mcp.example.com/mcp' })))).code).toBe('MCP_TOKEN_STORE_INVALID')
  })

  it('over MAX_TOKEN_STORE_BYTES, or not JSON: MCP_TOKEN_STORE_INVALID naming the file', async () => {
    const dir = storeDir()
    const path = join(dir, 'mcp-credentials.json')
    writeFileSync(path, `{"logins":{},"pad":"${'x'.repeat(MAX_TOKEN_STORE_BYTES)}"}`)
    expect(await failure(new TokenStore(path).get(KEY))).toMatchObject({ code: 'MCP_TOKEN_STORE_INVALID', message: `the OAuth token store ${path} cannot be read: it is larger than ${MAX_TOKEN_STORE_BYTES} bytes` })
    writeFileSync(path, '{"logins":')
    expect(await failure(new TokenStore(path).keys())).toMatchObject({ code: 'MCP_TOKEN_STORE_INVALID', message: expect.stringContaining(`${path} is not JSON`) })
  })

  it.runIf(mkfifoSync(join(scratch, 'probe2.fifo')))('a FIFO at its lock file is MCP_TOKEN_STORE_LOCKED at once, naming it (no wait on it, no spin), and the store is not written', { timeout: 30_000 }, async () => {
    const dir = storeDir()
    const path = join(dir, 'mcp-credentials.json')
    expect(mkfifoSync(`${path}.lock`)).toBe(true)
    fifos.push(`${path}.lock`)
    const store = new TokenStore(path, { lockWaitMs: 60_000 })
    const refused = await failure(store.update(KEY, () => ({ serverUrl: 'https://mcp.example.com/mcp' })))
    expect(refused).toMatchObject({ code: 'MCP_TOKEN_STORE_LOCKED', message: `${path}.lock cannot be read: it is not a regular file; it is no lock file of dsh's: remove it` })
    expect(await store.keys()).toEqual([])
  })
})
