import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CORE_ROWS, dsh, json, killRunning, removeTempDirs, ROOT, serveIn, tempDir } from './helpers.ts'

// The one-shot commands tell plugins so (a watcher started there could never see a change); `serve`
// tells them it lives on.

const PROBE = join(ROOT, 'packages', 'core', 'core', 'tests', 'fixtures', 'lifetime-probe.mjs')

const clients: Client[] = []

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})))
  killRunning()
  await removeTempDirs()
})

async function preset(): Promise<string> {
  const dir = await tempDir()
  await writeFile(join(dir, 'preset.yml'), `${CORE_ROWS}- id: lifetime\n  name: ${JSON.stringify(PROBE)}\n`)
  return join(dir, 'preset.yml')
}

describe('the host lifetime dsh tells plugins', () => {
  it('dsh call is one-shot', async () => {
    const run = await dsh(['call', 'host_lifetime', '--json', '--preset', await preset()])
    expect(json(run)).toMatchObject({ isError: false, value: { lifetime: 'one-shot' } })
  })

  it('dsh serve is long-lived', async () => {
    const client = new Client({ name: 'dsh-lifetime-test', version: '0' })
    await client.connect(serveIn(['--preset', await preset()]).transport)
    clients.push(client)
    const result = await client.callTool({ name: 'host_lifetime', arguments: {} })
    // The default rendering is the value as JSON.
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual({ lifetime: 'long-lived' })
  })
})
