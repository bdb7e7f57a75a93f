// A YAML file's `$schema` modeline names any URL, and a repository's file is not its user's word:
// the catalog's yaml server must not fetch it (a loopback service, or a beacon to whoever wrote the
// file, from a workspace nobody trusted). It asks dsh instead, which serves no such request.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { dshIn, killRunning, removeTempDirs, tempDir } from '../../../cli/cli/tests/helpers.ts'

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
