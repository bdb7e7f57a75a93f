import { execFileSync } from 'node:child_process'
import { closeSync, constants, openSync } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { CredentialService, describeSearch, FileSystem, ReadinessService, SessionService, ToolRuntime, TrustService, userEnvFile } from '../src/index.ts'
import { TRUST_EVERYTHING } from '../../../../test-support/trust.ts'
import { harnessRejection, removeTempDirs, tempDir } from './helpers.ts'

const NAME = 'DSH_CORE_TEST_CREDENTIAL'
const OTHER = 'DSH_CORE_TEST_OTHER'
const touched = [NAME, OTHER, 'DSH_HOME']
const saved = new Map<string, string | undefined>()

let app: Context
let project: string
let home: string

beforeEach(async () => {
  for (const name of touched) saved.set(name, process.env[name])
  delete process.env[NAME]
  delete process.env[OTHER]
  project = await tempDir('dsh-cred-project-')
  home = await tempDir('dsh-cred-home-')
  process.env.DSH_HOME = home
  app = new Context()
  app.plugin(FileSystem, { io: 'async' })
  app.plugin(TrustService)
  app.plugin(CredentialService)
  await app.start()
  // These tests are about the layers; the trust gate has its own below.
  trustEverything = app.trust.decider(TRUST_EVERYTHING)
})

let trustEverything: () => void

afterEach(async () => {
  await app.stop()
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  saved.clear()
  await removeTempDirs()
})

const projectEnv = (text: string) => writeFile(join(project, '.env'), text)
const userEnv = (text: string) => writeFile(join(home, '.env'), text)

describe('lookup says why a credential was not found', () => {
  it('names every place searched, and an unreadable .env is skipped with its reason instead of counting as absent', async () => {
    await mkdir(join(project, '.env'))
    await writeFile(join(home, '.env'), Buffer.from([0x41, 0x3d, 0xff, 0x0a]))
    const lookup = await app.credentials.lookup(NAME, { cwd: project })
    expect(lookup.credential).toBeUndefined()
    expect(lookup.searched).toEqual([
      { source: 'env', where: 'environment', outcome: 'absent' },
      { source: 'project', where: join(project, '.env'), outcome: 'unreadable', reason: expect.stringContaining('FS_NOT_REGULAR_FILE') },
      { source: 'user', where: join(home, '.env'), outcome: 'unreadable', reason: 'not valid UTF-8 text' },
    ])
    expect(describeSearch(lookup.searched)).toBe(
      `not in the environment; ${join(project, '.env')} cannot be read (${lookup.searched[1]!.reason}); ${join(home, '.env')} cannot be read (not valid UTF-8 text)`,
    )
  })

  it('goes on to the next layer past an unreadable one', async () => {
    await mkdir(join(project, '.env'))
    await userEnv(`${NAME}=from-user\n`)
    const lookup = await app.credentials.lookup(NAME, { cwd: project })
    expect(lookup.credential).toEqual({ value: 'from-user', source: 'user' })
    expect(lookup.searched.map((entry) => entry.outcome)).toEqual(['absent', 'unreadable', 'found'])
  })

  it('tells a missing file and an empty value apart from an absent name', async () => {
    await userEnv(`${NAME}=\n`)
    const lookup = await app.credentials.lookup(NAME, { cwd: project })
    expect(lookup.searched.map((entry) => entry.outcome)).toEqual(['absent', 'no file', 'empty'])
  })
})

describe('layers', () => {
  it('the process environment wins over the project .env, which wins over the user .env', async () => {
    process.env[NAME] = 'from-env'
    await projectEnv(`${NAME}=from-project\n`)
    await userEnv(`${NAME}=from-user\n`)
    expect(await app.credentials.resolve(NAME, { cwd: project })).toEqual({ value: 'from-env', source: 'env' })
    delete process.env[NAME]
    expect(await app.credentials.resolve(NAME, { cwd: project })).toEqual({ value: 'from-project', source: 'project' })
    await projectEnv(`${OTHER}=unrelated\n`)
    expect(await app.credentials.resolve(NAME, { cwd: project })).toEqual({ value: 'from-user', source: 'user' })
  })

  it('answers undefined when no layer has the name', async () => {
    await projectEnv(`${OTHER}=x\n`)
    await userEnv(`${OTHER}=y\n`)
    expect(await app.credentials.resolve(NAME, { cwd: project })).toBeUndefined()
  })

  it('answers undefined when neither .env file exists', async () => {
    expect(await app.credentials.resolve(NAME, { cwd: project })).toBeUndefined()
  })

  it('counts an empty value as absent in every layer', async () => {
    process.env[NAME] = ''
    await projectEnv(`${NAME}=\n`)
    await userEnv(`${NAME}=from-user\n`)
    expect(await app.credentials.resolve(NAME, { cwd: project })).toEqual({ value: 'from-user', source: 'user' })
    await userEnv(`${NAME}=""\n`)
    expect(await app.credentials.resolve(NAME, { cwd: project })).toBeUndefined()
  })

  it('reads quoted values and ignores comments', async () => {
    await projectEnv(`# a comment\n${OTHER}=1\n${NAME}="with spaces # and hash"\n`)
    expect(await app.credentials.resolve(NAME, { cwd: project })).toEqual({ value: 'with spaces # and hash', source: 'project' })
  })

  it('finds the user .env through DSH_HOME', () => {
    expect(userEnvFile()).toBe(join(home, '.env'))
    expect(userEnvFile({})).toBe(join(homedir(), '.dsh', '.env'))
  })
})

describe('freshness', () => {
  it('re-reads the files on every call', async () => {
    await projectEnv(`${NAME}=one\n`)
    expect((await app.credentials.resolve(NAME, { cwd: project }))?.value).toBe('one')
    await projectEnv(`${NAME}=two\n`)
    expect((await app.credentials.resolve(NAME, { cwd: project }))?.value).toBe('two')
    await rm(join(project, '.env'))
    await userEnv(`${NAME}=three\n`)
    expect(await app.credentials.resolve(NAME, { cwd: project })).toEqual({ value: 'three', source: 'user' })
    await userEnv('')
    expect(await app.credentials.resolve(NAME, { cwd: project })).toBeUndefined()
  })

  it('re-reads the process environment on every call', async () => {
    expect(await app.credentials.resolve(NAME, { cwd: project })).toBeUndefined()
    process.env[NAME] = 'late'
    expect(await app.credentials.resolve(NAME, { cwd: project })).toEqual({ value: 'late', source: 'env' })
  })

  it('follows a change of DSH_HOME', async () => {
    const other = await tempDir('dsh-cred-home2-')
    await writeFile(join(other, '.env'), `${NAME}=second-home\n`)
    await userEnv(`${NAME}=first-home\n`)
    expect((await app.credentials.resolve(NAME, { cwd: project }))?.value).toBe('first-home')
    process.env.DSH_HOME = other
    expect((await app.credentials.resolve(NAME, { cwd: project }))?.value).toBe('second-home')
  })
})

describe('names', () => {
  it.each(['', '1ABC', 'A-B', 'A B', 'A=B', 'ÄPI_KEY', '$HOME', 'a.b'])('refuses %j with CREDENTIAL_NAME_INVALID', async (name) => {
    expect((await harnessRejection(app.credentials.resolve(name, { cwd: project }))).code).toBe('CREDENTIAL_NAME_INVALID')
  })

  it.each(['toString', 'constructor', 'hasOwnProperty', '__proto__', 'valueOf'])('does not mistake the inherited member %s for a credential', async (name) => {
    await projectEnv(`${OTHER}=x\n`)
    await userEnv(`${OTHER}=y\n`)
    expect(await app.credentials.resolve(name, { cwd: project })).toBeUndefined()
  })

  it('finds a credential whose name happens to be an Object member when a file defines it', async () => {
    await projectEnv('constructor=defined-here\n')
    expect(await app.credentials.resolve('constructor', { cwd: project })).toEqual({ value: 'defined-here', source: 'project' })
  })

  it('accepts names of any case with underscores and digits', async () => {
    await projectEnv('_lower_1=a\n')
    expect(await app.credentials.resolve('_lower_1', { cwd: project })).toEqual({ value: 'a', source: 'project' })
  })
})

describe('the project of a tool call', () => {
  it('uses the calling session cwd as the project when no cwd is given', async () => {
    const tools = new Context()
    tools.plugin(ToolRuntime, {})
    tools.plugin(SessionService)
    tools.plugin(FileSystem)
    tools.plugin(TrustService)
    tools.plugin(CredentialService)
    await tools.start()
    tools.trust.decider(TRUST_EVERYTHING)
    try {
      const ws = join(project, 'workspace')
      await mkdir(ws)
      await writeFile(join(ws, '.env'), `${NAME}=session-project\n`)
      tools.tools.register({
        name: 'needs_key',
        description: 'Looks up a key.',
        input: z.object({}),
        execute: async () => {
          const found = await tools.credentials.resolve(NAME)
          return found ? { value: found.value, source: found.source } : null
        },
      })
      const session = tools.sessions.create({ cwd: ws })
      const result = await tools.tools.execute({ name: 'needs_key', arguments: {}, session })
      expect(result.isError ? result.error : result.value).toEqual({ value: 'session-project', source: 'project' })
    } finally {
      await tools.stop()
    }
  })
})

describe('the project .env and workspace trust', () => {
  it('is not read in an untrusted workspace; the environment and the user .env still are', async () => {
    trustEverything()
    await projectEnv(`${NAME}=from-project\n`)
    await userEnv(`${OTHER}=from-user\n`)
    const lookup = await app.credentials.lookup(NAME, { cwd: project })
    expect(lookup.credential).toBeUndefined()
    expect(lookup.searched[1]).toEqual({ source: 'project', where: join(project, '.env'), outcome: 'untrusted', reason: `dsh trust ${project}` })
    expect(describeSearch(lookup.searched)).toContain(`${join(project, '.env')} is not read (the workspace is not trusted; dsh trust ${project} trusts it)`)
    expect(await app.credentials.resolve(OTHER, { cwd: project })).toEqual({ value: 'from-user', source: 'user' })
    process.env[NAME] = 'from-env'
    expect(await app.credentials.resolve(NAME, { cwd: project })).toEqual({ value: 'from-env', source: 'env' })
    delete process.env[NAME]
    await app.trust.trust(project)
    expect(await app.credentials.resolve(NAME, { cwd: project })).toEqual({ value: 'from-project', source: 'project' })
  })

  it('shows an untrusted project .env as a dsh status row with the command, and nothing for a workspace without one', async () => {
    trustEverything()
    const status = new Context()
    status.plugin(FileSystem)
    status.plugin(TrustService)
    status.plugin(CredentialService)
    status.plugin(ReadinessService, { probeTimeoutMs: 120_000 })
    await status.start()
    try {
      expect(await status.readiness.report({ probe: true, cwd: project })).toEqual([])
      await projectEnv(`${NAME}=x\n`)
      const [row, ...rest] = await status.readiness.report({ probe: true, cwd: project })
      expect(rest).toEqual([])
      expect(row).toMatchObject({ surface: 'credentials', id: 'project-env', state: 'untrusted' })
      expect(row!.detail).toContain(`${join(project, '.env')} is not read`)
      expect(row!.detail).toContain(`dsh trust ${project}`)
      await status.trust.trust(project)
      expect(await status.readiness.report({ probe: true, cwd: project })).toEqual([])
    } finally {
      await status.stop()
    }
  })
})

describe('a .env that is not a regular file', () => {
  it('a FIFO .env read four times at once is refused and leaves the thread pool free for other fs work', async () => {
    execFileSync('mkfifo', [join(project, '.env')])
    const fifo = join(project, '.env')
    try {
      const lookups = Promise.all([1, 2, 3, 4].map(() => app.credentials.lookup(NAME, { cwd: project })))
      // With the reads holding every libuv thread, this stat would never answer.
      const other = app.fs.stat(join(home))
      const guard = new Promise((_, reject) => setTimeout(() => reject(new Error('fs work stalled behind the FIFO .env reads')), 60_000).unref())
      const [found, info] = (await Promise.race([Promise.all([lookups, other]), guard])) as [Awaited<typeof lookups>, Awaited<typeof other>]
      expect(info?.type).toBe('directory')
      for (const lookup of found) expect(lookup.searched[1]).toMatchObject({ source: 'project', outcome: 'unreadable', reason: expect.stringContaining('FS_NOT_REGULAR_FILE') })
    } finally {
      // Release any reader still blocked on the FIFO (the unfixed code): a writer that opens and closes gives it EOF.
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))
      } catch {
        // no reader left
      }
    }
  })
})
