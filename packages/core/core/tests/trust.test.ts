import { execFileSync } from 'node:child_process'
import { chmod, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { TrustService, TrustStore, trustCommand, trustOf, trustStoreFile, untrustedReason, type TrustDecision, type TrustHook } from '../src/index.ts'
import { capturedLogs, removeTempDirs, tempDir } from './helpers.ts'

const logs = capturedLogs()
let home: string
let work: string
let saved: string | undefined

beforeEach(async () => {
  saved = process.env.DSH_HOME
  home = await tempDir('dsh-trust-home-')
  work = await tempDir('dsh-trust-work-')
  process.env.DSH_HOME = home
})

afterEach(async () => {
  if (saved === undefined) delete process.env.DSH_HOME
  else process.env.DSH_HOME = saved
  await removeTempDirs()
})

async function service(): Promise<{ app: Context; trust: TrustService }> {
  const app = new Context()
  app.plugin(TrustService)
  await app.start()
  return { app, trust: app.trust }
}

describe('workspace trust', () => {
  it('is untrusted when nothing was decided and nobody is asked', async () => {
    const { app, trust } = await service()
    const decision = await trust.decide(work, { brings: 'its skills' })
    expect(decision).toEqual({ trusted: false, directory: work, by: 'default', command: `dsh trust ${work}` })
    await app.stop()
  })

  it('trusts a recorded directory and what is below it, through symlinks, and not its siblings', async () => {
    const { app, trust } = await service()
    const inner = join(work, 'a', 'b')
    await mkdir(inner, { recursive: true })
    const sibling = await tempDir('dsh-trust-sibling-')
    const alias = join(sibling, 'alias')
    await symlink(inner, alias)
    await trust.trust(join(work, 'a'))
    expect((await trust.decide(inner, { brings: 'x' })).trusted).toBe(true)
    const viaLink = await trust.decide(alias, { brings: 'x' })
    expect(viaLink).toMatchObject({ trusted: true, directory: inner, by: 'record', recordedFor: join(work, 'a') })
    expect((await trust.decide(work, { brings: 'x' })).trusted).toBe(false)
    expect((await trust.decide(sibling, { brings: 'x' })).trusted).toBe(false)
    // `/w/a` does not cover `/w/ab`.
    await mkdir(join(work, 'ab'))
    expect((await trust.decide(join(work, 'ab'), { brings: 'x' })).trusted).toBe(false)
    await app.stop()
  })

  it('keeps a revoked directory untrusted below a trusted one', async () => {
    const { app, trust } = await service()
    const vendor = join(work, 'vendor')
    await mkdir(join(vendor, 'x'), { recursive: true })
    await trust.trust(work)
    await trust.revoke(vendor)
    expect((await trust.decide(join(vendor, 'x'), { brings: 'x' })).trusted).toBe(false)
    expect((await trust.decide(work, { brings: 'x' })).trusted).toBe(true)
    expect((await trust.list()).map(({ directory, trusted }) => [directory, trusted])).toEqual([
      [work, true],
      [vendor, false],
    ])
    await app.stop()
  })

  it('writes trusted.json 0600 in a 0700 directory, tightening a directory that exists', async () => {
    await chmod(home, 0o755)
    const { app, trust } = await service()
    await trust.trust(work)
    expect((await stat(home)).mode & 0o777).toBe(0o700)
    expect((await stat(trustStoreFile())).mode & 0o777).toBe(0o600)
    expect(JSON.parse(await readFile(trustStoreFile(), 'utf8')).directories[work].trusted).toBe(true)
    await app.stop()
  })

  it('keeps every decision of writers recording at once into one trusted.json (no lost update)', async () => {
    // Eight stores on one file, as eight `dsh trust` processes are: each read-modify-write holds the
    // file's lock. Before, each read the file before any wrote, and the last rename won.
    const directories = await Promise.all(Array.from({ length: 8 }, () => tempDir('dsh-trust-many-')))
    await Promise.all(directories.map((directory) => new TrustStore(trustStoreFile()).record(directory, true)))
    expect((await new TrustStore(trustStoreFile()).list()).map((record) => record.directory).sort()).toEqual([...directories].sort())
    await expect(stat(`${trustStoreFile()}.lock`)).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('a home it cannot create fails TRUST_STORE_WRITE_FAILED naming the file', async () => {
    await writeFile(join(home, 'not-a-directory'), '')
    const store = new TrustStore(join(home, 'not-a-directory', 'trusted.json'))
    await expect(store.record(work, true)).rejects.toMatchObject({ code: 'TRUST_STORE_WRITE_FAILED', message: expect.stringContaining(join(home, 'not-a-directory', 'trusted.json')) })
  })

  it('lets a harness hook decide, and hands back when its registration is disposed', async () => {
    const { app, trust } = await service()
    await trust.trust(work)
    const asked: unknown[] = []
    const dispose = trust.decider((question) => {
      asked.push({ directory: question.directory, brings: question.brings, recorded: question.recorded })
      return false
    })
    expect(await trust.decide(work, { brings: 'its TypeScript' })).toMatchObject({ trusted: false, by: 'hook' })
    expect(asked).toEqual([{ directory: work, brings: 'its TypeScript', recorded: true }])
    dispose()
    expect(await trust.decide(work, { brings: 'x' })).toMatchObject({ trusted: true, by: 'record' })
    await app.stop()
  })

  it('falls back to the record when the hook passes, and stays untrusted when the hook fails', async () => {
    const { app, trust } = await service()
    trust.decider(() => undefined)
    expect(await trust.decide(work, { brings: 'x' })).toMatchObject({ trusted: false, by: 'default' })
    trust.decider(() => {
      throw new Error('dialog crashed')
    })
    expect(await trust.decide(work, { brings: 'x' })).toMatchObject({ trusted: false, by: 'default' })
    trust.decider((() => 'yes') as unknown as TrustHook)
    expect(await trust.decide(work, { brings: 'x' })).toMatchObject({ trusted: false, by: 'default' })
    await app.stop()
  })

  // A caller whose untrusted default is safe (tsserver without type acquisition) must not put a
  // question to the user in every workspace: `ask: false` reads the record.
  it('with ask: false asks nobody: the recorded decision answers', async () => {
    const { app, trust } = await service()
    const asked: string[] = []
    trust.decider((question) => {
      asked.push(question.brings)
      return true
    })
    expect(await trust.decide(work, { brings: 'type acquisition', ask: false })).toMatchObject({ trusted: false, by: 'default' })
    await trust.revoke(work)
    expect(await trust.decide(work, { brings: 'type acquisition', ask: false })).toMatchObject({ trusted: false, by: 'record' })
    await trust.trust(work)
    expect(await trust.decide(work, { brings: 'type acquisition', ask: false })).toMatchObject({ trusted: true, by: 'record' })
    expect(asked).toEqual([])
    // The same question without `ask: false` is put to the hook.
    expect(await trust.decide(work, { brings: 'its .mcp.json' })).toMatchObject({ trusted: true, by: 'hook' })
    expect(asked).toEqual(['its .mcp.json'])
    await app.stop()
  })

  // A language server rooted at a trusted /w loads and builds /w/vendor too: the user's revoke of
  // /w/vendor would otherwise not stop rust-analyzer running its build scripts.
  it('with subtree: a directory below that is recorded untrusted leaves a trusted one untrusted, asking nobody', async () => {
    const { app, trust } = await service()
    const asked: string[] = []
    trust.decider((question) => {
      asked.push(question.directory)
      return true
    })
    const vendor = join(work, 'vendor')
    await mkdir(join(vendor, 'lib'), { recursive: true })
    await trust.trust(work)
    await trust.revoke(vendor)
    const revoked = { trusted: false, directory: work, by: 'record', recordedFor: vendor, revokedBelow: vendor, command: `dsh trust ${vendor}` }
    expect(await trust.decide(work, { brings: 'rust-analyzer', subtree: true })).toEqual(revoked)
    expect(await trust.decide(work, { brings: 'rust-analyzer', subtree: true, ask: false })).toEqual(revoked)
    expect(asked).toEqual([])
    expect(untrustedReason(revoked as TrustDecision)).toBe(`${work} holds ${vendor}, which is not trusted`)
    // The directory's own decision for what it alone brings; a directory beside the revoked one, and one inside it.
    expect(await trust.decide(work, { brings: 'its .env', ask: false })).toMatchObject({ trusted: true, by: 'record' })
    await mkdir(join(work, 'src'))
    expect(await trust.decide(join(work, 'src'), { brings: 'rust-analyzer', subtree: true, ask: false })).toMatchObject({ trusted: true, by: 'record', recordedFor: work })
    expect(await trust.decide(join(vendor, 'lib'), { brings: 'rust-analyzer', subtree: true, ask: false })).toMatchObject({ trusted: false, by: 'record', recordedFor: vendor })
    // The recorded decisions alone (no trust row mounted) follow the same rule.
    expect(await trustOf(new Context()).decide(work, { brings: 'rust-analyzer', subtree: true })).toEqual(revoked)
    await trust.trust(vendor)
    expect(await trust.decide(work, { brings: 'rust-analyzer', subtree: true, ask: false })).toMatchObject({ trusted: true, by: 'record' })
    await app.stop()
  })

  // cargo reads .cargo/config.toml in every directory above a crate (a rustc-wrapper there runs), go a
  // go.work above its module, Node a node_modules above it: trusting /w/app is not trusting /w.
  it('with readsAbove: one of the names in an untrusted directory above leaves a trusted one untrusted, asking nobody', async () => {
    const { app, trust } = await service()
    const asked: string[] = []
    trust.decider((question) => {
      asked.push(question.directory)
      return true
    })
    const inner = join(work, 'app')
    await mkdir(join(work, '.cargo'), { recursive: true })
    await mkdir(inner)
    await trust.trust(inner)
    const above = { trusted: false, directory: inner, by: 'default', command: `dsh trust ${work}`, untrustedAbove: join(work, '.cargo') }
    expect(await trust.decide(inner, { brings: 'rust-analyzer', readsAbove: ['rust-toolchain.toml', '.cargo'] })).toEqual(above)
    expect(asked).toEqual([])
    expect(untrustedReason(above as TrustDecision)).toBe(`its tools read ${join(work, '.cargo')} above ${inner}, and ${work} is not trusted`)
    // Names that are not there, or no names: the directory's own decision.
    expect(await trust.decide(inner, { brings: 'rust-analyzer', readsAbove: ['rust-toolchain.toml'], ask: false })).toMatchObject({ trusted: true, by: 'record' })
    expect(await trust.decide(inner, { brings: 'its .env', ask: false })).toMatchObject({ trusted: true })
    // A revoked directory above is named as recorded; a trusted one above is no objection.
    await trust.revoke(work)
    expect(await trust.decide(inner, { brings: 'rust-analyzer', readsAbove: ['.cargo'], ask: false })).toMatchObject({ trusted: false, by: 'record', recordedFor: work, untrustedAbove: join(work, '.cargo') })
    await trust.trust(work)
    expect(await trust.decide(inner, { brings: 'rust-analyzer', readsAbove: ['.cargo'], ask: false })).toMatchObject({ trusted: true, by: 'record', recordedFor: inner })
    // The user's home and above are theirs: a ~/.cargo is not looked at.
    await trust.revoke(work)
    const saved = process.env.HOME
    process.env.HOME = work
    try {
      expect(await trust.decide(inner, { brings: 'rust-analyzer', readsAbove: ['.cargo'], ask: false })).toMatchObject({ trusted: true })
    } finally {
      process.env.HOME = saved
    }
    await app.stop()
  })

  it('asks once for concurrent questions about one directory', async () => {
    const { app, trust } = await service()
    let calls = 0
    trust.decider(async () => {
      calls++
      await new Promise((resolve) => setTimeout(resolve, 10))
      return true
    })
    const decisions = await Promise.all([trust.decide(work, { brings: 'a' }), trust.decide(work, { brings: 'b' }), trust.decide(work, { brings: 'c' })])
    expect(decisions.map((decision) => decision.trusted)).toEqual([true, true, true])
    expect(calls).toBe(1)
    await app.stop()
  })

  it('tells a hook that is still asking when the service is unloaded, and the waiting decide fails TRUST_DISPOSED', async () => {
    const { app, trust } = await service()
    let asked: AbortSignal | undefined
    trust.decider(({ signal }) => {
      asked = signal
      // A dialog that only ends when it is told to.
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }))
    })
    const waiting = trust.decide(work, { brings: 'x' })
    await expect.poll(() => asked).toBeDefined()
    expect(asked?.aborted).toBe(false)
    await app.stop()
    expect(asked?.aborted).toBe(true)
    expect(asked?.reason).toMatchObject({ code: 'TRUST_DISPOSED' })
    await expect(waiting).rejects.toMatchObject({ code: 'TRUST_DISPOSED' })
  })

  it("stops waiting when the caller's signal aborts; the question itself is still asked once", async () => {
    const { app, trust } = await service()
    let calls = 0
    let answer!: (trusted: boolean) => void
    trust.decider(() => {
      calls++
      return new Promise<boolean>((resolve) => (answer = resolve))
    })
    const caller = new AbortController()
    const first = trust.decide(work, { brings: 'a', signal: caller.signal })
    const second = trust.decide(work, { brings: 'b' })
    await expect.poll(() => calls).toBe(1)
    caller.abort(new Error('the caller went away'))
    await expect(first).rejects.toThrow('the caller went away')
    answer(true)
    expect(await second).toMatchObject({ trusted: true, by: 'hook' })
    expect(calls).toBe(1)
    await app.stop()
  })

  it("asks the host's askTrust when no hook is registered", async () => {
    const app = new Context()
    app.set('dshHost', { lifetime: 'one-shot', workspace: work, askTrust: () => true })
    app.plugin(TrustService)
    await app.start()
    expect(await app.trust.decide(work, { brings: 'x' })).toMatchObject({ trusted: true, by: 'hook' })
    await app.stop()
  })

  it('without a trust row, decides from the recorded decisions alone', async () => {
    const app = new Context()
    expect((await trustOf(app).decide(work, { brings: 'x' })).trusted).toBe(false)
    await new TrustStore().record(work, true)
    expect((await trustOf(app).decide(work, { brings: 'x' })).trusted).toBe(true)
  })

  it('decides nothing from a malformed or non-regular trusted.json and never overwrites it', async () => {
    const { app, trust } = await service()
    await writeFile(trustStoreFile(), `{"version":1,"directories":{"${work}":{"trusted":"yes"}}}`)
    expect((await trust.decide(work, { brings: 'x' })).trusted).toBe(false)
    await expect(trust.trust(work)).rejects.toMatchObject({ code: 'TRUST_STORE_INVALID' })
    await writeFile(trustStoreFile(), `{"version":1,"directories":{"relative/dir":{"trusted":true,"decidedAt":"x"}}}`)
    expect(await trust.list()).toEqual([])
    // A FIFO with no writer: refused at once, never waited on.
    await writeFile(trustStoreFile(), '')
    const { rm } = await import('node:fs/promises')
    await rm(trustStoreFile())
    execFileSync('mkfifo', [trustStoreFile()])
    expect((await trust.decide(work, { brings: 'x' })).trusted).toBe(false)
    await expect(trust.trust(work)).rejects.toMatchObject({ code: 'TRUST_STORE_INVALID' })
    await app.stop()
  })

  it('says once, in the log, that a trusted.json that decides nothing makes every workspace untrusted', async () => {
    const { app, trust } = await service()
    await writeFile(trustStoreFile(), '{"version":1, "directories": {')
    expect((await trust.decide(work, { brings: 'x' })).trusted).toBe(false)
    expect((await trust.recorded(work)).trusted).toBe(false)
    const warnings = logs.filter((line) => line.includes('trusted.json'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(`${trustStoreFile()} decides nothing (not JSON:`)
    expect(warnings[0]).toContain('every workspace is untrusted until it is fixed or removed')
    await app.stop()
  })

  it("tells onChange listeners when another process changes trusted.json, until they or the service go", async () => {
    const app = new Context()
    app.plugin(TrustService, { watchIntervalMs: 20 })
    await app.start()
    let heard = 0
    let failing = 0
    const stop = app.trust.onChange(() => {
      heard++
    })
    // A listener that fails is logged; the others are still told.
    app.trust.onChange(() => {
      failing++
      throw new Error('listener broke')
    })
    // Another process: its own store on the same file (the directory does not exist yet).
    const other = new TrustStore(trustStoreFile({ DSH_HOME: join(home, 'later') }))
    const watched = new Context()
    watched.plugin(TrustService, { file: other.file, watchIntervalMs: 20 })
    await watched.start()
    let heardLater = 0
    watched.trust.onChange(() => {
      heardLater++
    })
    await new TrustStore(trustStoreFile()).record(work, false)
    await other.record(work, true)
    await vi.waitFor(() => expect([heard > 0, heardLater > 0]).toEqual([true, true]), { timeout: 5000 })
    expect(failing).toBeGreaterThan(0)
    await vi.waitFor(() => expect(logs.some((line) => line.includes('a trust change listener failed: listener broke'))).toBe(true))
    stop()
    const before = heard
    await new TrustStore(trustStoreFile()).record(work, true)
    await vi.waitFor(() => expect(failing).toBeGreaterThan(1), { timeout: 5000 })
    expect(heard).toBe(before)
    await app.stop()
    await watched.stop()
    const after = heardLater
    await other.record(work, false)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(heardLater).toBe(after)
  })

  it('quotes the directory in the command when a shell needs it', () => {
    expect(trustCommand('/w/plain-dir_1.x')).toBe('dsh trust /w/plain-dir_1.x')
    expect(trustCommand("/w/it's here")).toBe(`dsh trust '/w/it'\\''s here'`)
  })
})
