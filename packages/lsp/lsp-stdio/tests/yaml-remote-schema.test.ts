// A YAML file's `$schema` modeline names any URL, and a repository's file is not its user's word:
// the catalog's yaml server must not fetch it (a loopback service, or a beacon to whoever wrote the
// file, from a workspace nobody trusted). It asks dsh instead, which serves no such request.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { TrustStore, trustStoreFile } from 'dsh-core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { dshIn, killRunning, removeTempDirs, serveIn, tempDir } from '../../../cli/cli/tests/helpers.ts'
import { processesLeftIn } from '../../../../test-support/processes.ts'
import { trustIn } from '../../../../test-support/trust.ts'

// What the host gives the server does not depend on dsh being a process: dsh runs in this worker
// (dshIn), without a node start and the bundle's load per run.
afterEach(async () => {
  await killRunning()
  await removeTempDirs()
})

describe("the catalog's yaml server and a file's remote $schema", () => {
  it('sends no request to the URL a file names; the diagnostics say the schema was not loaded', async () => {
    const requests: string[] = []
    const server = createServer((request, response) => {
      requests.push(request.url ?? '')
      response.setHeader('content-type', 'application/json')
      response.end('{"type":"object","properties":{"name":{"type":"string"}}}')
    })
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
    try {
      const { port } = server.address() as AddressInfo
      const scratch = await tempDir()
      const [home, repo] = [join(scratch, 'home'), join(scratch, 'repo')]
      await Promise.all([mkdir(home), mkdir(repo)])
      await writeFile(join(repo, 'a.yml'), `# yaml-language-server: $schema=http://127.0.0.1:${port}/schema.json\nname: 3\n`)
      const overlay = join(scratch, 'overlay.yml')
      await writeFile(overlay, '- id: lsp-stdio\n  config:\n    catalog: [yaml]\n')
      const run = await dshIn(['call', 'lsp_diagnostics', JSON.stringify({ filePath: 'a.yml' }), '--config', overlay, '--cwd', repo], { env: { DSH_HOME: home } })
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toContain(`Unable to load schema from 'http://127.0.0.1:${port}/schema.json'`)
      expect(requests).toEqual([])
    } finally {
      await new Promise((closed) => server.close(closed))
    }
  })
})

// A JSON file's `$schema` (or a schema's `$ref`) names any file on disk, and the json server shows
// what it read: an `enum`'s values in its diagnostic ("Valid values: …"). In an untrusted workspace
// it asks dsh for each (handledSchemaProtocols: []), and dsh reads only files inside the workspace.
describe("the catalog's json server and a file's $schema in an untrusted workspace", () => {
  it('loads a schema inside the workspace, and no file outside it', async () => {
    const scratch = await tempDir()
    const [home, repo] = [join(scratch, 'home'), join(scratch, 'repo')]
    await Promise.all([mkdir(home), mkdir(repo)])
    const outside = join(scratch, 'secret.json')
    await writeFile(outside, JSON.stringify({ properties: { b: { enum: ['SECRET-VALUE'] } } }))
    // A schema inside the workspace, which refers to the one outside: the first loads (its own enum is
    // checked), the second is refused, and nothing of it is shown.
    await writeFile(join(repo, 'schema.json'), JSON.stringify({ properties: { a: { enum: ['IN-REPO-VALUE'] }, b: { $ref: `file://${outside}` } } }))
    await writeFile(join(repo, 'a.json'), '{ "$schema": "./schema.json", "a": 1, "b": 2 }\n')
    const overlay = join(scratch, 'overlay.yml')
    await writeFile(overlay, '- id: lsp-stdio\n  config:\n    catalog: [json]\n')
    const refused = await dshIn(['call', 'lsp_diagnostics', JSON.stringify({ filePath: 'a.json' }), '--config', overlay, '--cwd', repo], { env: { DSH_HOME: home } })
    expect(refused.code, refused.stderr).toBe(0)
    expect(refused.stdout).toContain(`Unable to load schema from '${outside}'`)
    expect(refused.stdout).toContain(`is outside ${repo}`)
    expect(refused.stdout).not.toContain('SECRET-VALUE')
  })

  // A long-lived host (`dsh serve`) kept the server it started trusted after `dsh trust --revoke`
  // in another shell: it went on reading any file a $schema named until it happened to restart.
  it('a running server started trusted is stopped when the workspace is revoked; the next call runs it untrusted', async () => {
    const scratch = await tempDir()
    const [home, repo] = [join(scratch, 'home'), join(scratch, 'repo')]
    await Promise.all([mkdir(home), mkdir(repo)])
    const outside = join(scratch, 'secret.json')
    await writeFile(outside, JSON.stringify({ properties: { b: { enum: ['SECRET-VALUE'] } } }))
    await writeFile(join(repo, 'a.json'), `{ "$schema": "file://${outside}", "b": 2 }\n`)
    await trustIn(home, repo)
    const overlay = join(scratch, 'overlay.yml')
    await writeFile(overlay, '- id: lsp-stdio\n  config:\n    catalog: [json]\n- id: trust\n  config:\n    watchIntervalMs: 50\n')
    const served = serveIn(['--config', overlay, '--cwd', repo], { DSH_HOME: home })
    const client = new Client({ name: 'dsh-trust-revoke-test', version: '0' })
    await client.connect(served.transport)
    const diagnostics = async () => {
      const result = await client.callTool({ name: 'lsp_diagnostics', arguments: { filePath: 'a.json' } }, undefined, { timeout: 120_000 })
      return (result.content as { text: string }[]).map((part) => part.text).join('\n')
    }
    try {
      // Trusted: the server reads the file the $schema names itself.
      expect(await diagnostics()).toContain('SECRET-VALUE')
      // Another process revokes it (what `dsh trust --revoke` writes).
      await new TrustStore(trustStoreFile({ DSH_HOME: home })).record(repo, false)
      await vi.waitFor(() => expect(served.stderr()).toContain(`json: stopped its server for ${repo}: the trust it was started under was revoked`), { timeout: 10_000 })
      const after = await diagnostics()
      expect(after).not.toContain('SECRET-VALUE')
      expect(after).toContain(`is outside ${repo}`)
    } finally {
      await client.close()
    }
    expect(await served.exited).toBe(0)
    expect(await processesLeftIn(repo)).toEqual([])
  })
})
