// Routing by file name: files a language is known by their name (`Dockerfile`, `Containerfile`,
// `Dockerfile.prod`, `.bashrc`) reach the provider that lists the name in `filenameToLanguage`.
import { Context } from 'cordis'
import LspService, { LspError, type LspProvider, type LspProviderQuery, type LspQueryResult } from 'dsh-lsp'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

const NO_HOVER: LspQueryResult = { kind: 'hover', hover: null, complete: true }

interface Recorded extends LspProvider {
  readonly asked: LspProviderQuery[]
}

function provider(id: string, extensionToLanguage: Record<string, string>, filenameToLanguage?: Record<string, string>): Recorded {
  const asked: LspProviderQuery[] = []
  return {
    id,
    extensionToLanguage,
    ...(filenameToLanguage ? { filenameToLanguage } : {}),
    asked,
    async query(request) {
      asked.push(request)
      return NO_HOVER
    },
  }
}

const hover = (filePath: string) => ({ operation: 'hover' as const, filePath, position: { line: 0, character: 0 }, workspaceRoot: '/w' })

function thrown(fn: () => unknown): LspError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(LspError)
    return error as LspError
  }
  throw new Error('expected a throw')
}

let app: Context
beforeEach(async () => {
  app = new Context()
  app.plugin(LspService)
  await app.start()
})
afterEach(() => app.stop())

const DOCKER_NAMES = { Dockerfile: 'dockerfile', 'Dockerfile.*': 'dockerfile', Containerfile: 'dockerfile' }

describe('routing by file name', () => {
  it('a listed name, in any case and any directory, and a name.* pattern reach the provider with its language id', async () => {
    const docker = provider('docker', { '.dockerfile': 'dockerfile' }, DOCKER_NAMES)
    app.lsp.registerProvider(docker)
    for (const file of ['Dockerfile', 'deploy/dockerfile', 'C:\\app\\Dockerfile', 'Containerfile', 'Dockerfile.prod', 'ci/Dockerfile.prod.arm64', 'app.dockerfile']) await app.lsp.query(hover(file))
    expect(docker.asked.map((request) => [request.filePath, request.languageId])).toEqual([
      ['Dockerfile', 'dockerfile'],
      ['deploy/dockerfile', 'dockerfile'],
      ['C:\\app\\Dockerfile', 'dockerfile'],
      ['Containerfile', 'dockerfile'],
      ['Dockerfile.prod', 'dockerfile'],
      ['ci/Dockerfile.prod.arm64', 'dockerfile'],
      ['app.dockerfile', 'dockerfile'],
    ])
    for (const file of ['Dockerfiles', 'my.Dockerfile.prod', 'Containerfile.prod', 'Dockerfile/readme']) {
      expect(thrown(() => app.lsp.assertRouted(file)).code, file).toBe('LSP_UNAVAILABLE')
    }
  })

  it('a name wins over another provider’s extension, and a dotfile name works where no extension could', async () => {
    const yaml = provider('yaml', { '.yaml': 'yaml', '.prod': 'prod' })
    const docker = provider('docker', {}, DOCKER_NAMES)
    const shell = provider('shell', { '.sh': 'shellscript' }, { '.bashrc': 'shellscript' })
    for (const one of [yaml, docker, shell]) app.lsp.registerProvider(one)
    await app.lsp.query(hover('Dockerfile.prod'))
    await app.lsp.query(hover('home/.bashrc'))
    await app.lsp.query(hover('x.prod'))
    expect(docker.asked.map((request) => request.filePath)).toEqual(['Dockerfile.prod'])
    expect(shell.asked.map((request) => request.filePath)).toEqual(['home/.bashrc'])
    expect(yaml.asked.map((request) => request.filePath)).toEqual(['x.prod'])
  })

  it('lists names beside extensions, and the disposer removes them', () => {
    const dispose = app.lsp.registerProvider(provider('docker', { '.dockerfile': 'dockerfile' }, { Dockerfile: 'dockerfile', 'Dockerfile.*': 'dockerfile' }))
    expect(app.lsp.routing()).toEqual([
      { extension: '.dockerfile', providerId: 'docker', languageId: 'dockerfile' },
      { filename: 'dockerfile', providerId: 'docker', languageId: 'dockerfile' },
      { filename: 'dockerfile.*', providerId: 'docker', languageId: 'dockerfile' },
    ])
    dispose()
    expect(app.lsp.routing()).toEqual([])
    expect(thrown(() => app.lsp.assertRouted('Dockerfile')).code).toBe('LSP_UNAVAILABLE')
  })

  it('a name another provider holds (in any case) is a conflict, and nothing of the second provider is published', async () => {
    app.lsp.registerProvider(provider('docker', {}, { Dockerfile: 'dockerfile' }))
    const error = thrown(() => app.lsp.registerProvider(provider('other', { '.other': 'other' }, { DOCKERFILE: 'x' })))
    expect(error).toMatchObject({ code: 'LSP_CONFLICT', message: expect.stringContaining('"docker"') })
    expect(thrown(() => app.lsp.assertRouted('a.other')).code).toBe('LSP_UNAVAILABLE')
  })

  it('refuses a name that is a path, a glob other than name.*, blank, or mapped twice', () => {
    for (const bad of ['', 'a/Dockerfile', 'a\\Dockerfile', '*.dockerfile', 'Docker*file', 'Dockerfile*', '.', '..', '.*']) {
      const error = thrown(() => app.lsp.registerProvider(provider('bad', { '.x': 'x' }, { [bad]: 'x' })))
      expect(error.code, JSON.stringify(bad)).toBe('LSP_INVALID_PROVIDER')
    }
    expect(thrown(() => app.lsp.registerProvider(provider('twice', { '.x': 'x' }, { Makefile: 'make', makefile: 'make' }))).code).toBe('LSP_INVALID_PROVIDER')
    expect(thrown(() => app.lsp.registerProvider(provider('blank', { '.x': 'x' }, { Makefile: ' ' }))).code).toBe('LSP_INVALID_PROVIDER')
    expect(thrown(() => app.lsp.registerProvider({ ...provider('array', { '.x': 'x' }), filenameToLanguage: ['Makefile'] as never })).code).toBe('LSP_INVALID_PROVIDER')
    expect(thrown(() => app.lsp.registerProvider(provider('none', {}, {}))).code).toBe('LSP_INVALID_PROVIDER')
  })
})
