// Issue 27 item 2: one lsp call proved its workspace and its files twice (the provider, then the
// tool's line text). CallProofs makes each proof once per call; nothing of it outlives the call, so
// a symlink swapped out of the workspace between two calls is refused by the second. Proofs are
// counted, not timed.
import { mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FileSystem as FileSystemService } from 'dsh-core'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { CallProofs, PROVEN_TEXT_LIMITS, ProvenTextCache } from '../src/index.ts'
import { countAsyncInits } from '../../../../test-support/async-inits.ts'
import { useFsHost } from './fs-host.ts'

/** The event loop's file-system calls made from now on (ctx.fs's shared SyncCalls); the returned function reads them. */
function eventLoopCalls(): () => { lstat: number; realpath: number; stat: number } {
  const calls = (host.fs() as unknown as { provenCalls: Record<'lstat' | 'realpath' | 'stat', (...args: never[]) => unknown> }).provenCalls
  const spies = (['lstat', 'realpath', 'stat'] as const).map((name) => vi.spyOn(calls, name))
  return () => ({ lstat: spies[0]!.mock.calls.length, realpath: spies[1]!.mock.calls.length, stat: spies[2]!.mock.calls.length })
}

const host = useFsHost('call-proofs-')

describe('CallProofs', () => {
  const tempDir = host.tempDir
  let fs: FileSystemService
  beforeAll(() => {
    fs = host.fs()
  })

  it('resolves the workspace once and proves each file once, under any of its spellings', async () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'src'))
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 1\n')
    symlinkSync(join(dir, 'src/a.ts'), join(dir, 'alias.ts'))
    const workspaces = vi.spyOn(fs, 'workspace')
    const contained = vi.spyOn(fs, 'containedBelowNow')
    const proofs = new CallProofs(fs, dir)
    const workspace = await proofs.workspace()
    expect(await proofs.workspace()).toBe(workspace)
    expect(await proofs.contained(workspace, 'src/a.ts')).toBe(join(dir, 'src/a.ts'))
    expect(await proofs.contained(workspace, join(dir, 'src/a.ts'))).toBe(join(dir, 'src/a.ts'))
    expect(await proofs.contained(workspace, 'alias.ts')).toBe(join(dir, 'src/a.ts'))
    expect(await proofs.contained(workspace, 'alias.ts')).toBe(join(dir, 'src/a.ts'))
    expect(workspaces).toHaveBeenCalledTimes(1)
    // One for src/a.ts (its canonical path counts as proven), one for the alias's own spelling.
    expect(contained.mock.calls.map(([, path]) => path)).toEqual(['src/a.ts', 'alias.ts'])
    // Both answered on the event loop: the second asker of each has the value in the call.
    expect(proofs.containedNow(workspace, 'alias.ts')).toBe(join(dir, 'src/a.ts'))
    expect(contained).toHaveBeenCalledTimes(2)
  })

  it('proves a file below its own workspace by lstats below it and keeps the file\'s lstat for the call: a kept text\'s check takes no second stat (issue 27 item 2)', async () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'src'))
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 1\n')
    const texts = new ProvenTextCache(fs, { ...PROVEN_TEXT_LIMITS, settleMs: Number.NEGATIVE_INFINITY })
    const first = new CallProofs(fs, dir)
    const workspace = await first.workspace()
    const path = await first.contained(workspace, 'src/a.ts')
    await texts.read(workspace, path, { maxBytes: 1024, proofs: first })
    const next = new CallProofs(fs, dir)
    const again = await next.workspace()
    const calls = eventLoopCalls()
    expect(next.containedNow(again, 'src/a.ts')).toBe(path)
    const lookup = texts.lookup(path, undefined, next)
    // A value (no promise), a hit, and no stat beyond the proof's: the two names below the workspace
    // (3 before: the walk looked at the workspace directory, which the call's proof of it had just stat'd).
    expect(lookup).toMatchObject({ hit: { text: 'export const a = 1\n' } })
    expect(calls()).toEqual({ lstat: 2, realpath: 0, stat: 0 })
    expect(next.statOf(path)?.info).toMatchObject({ type: 'file', size: 19 })
  })

  it('looks at the workspace directory once per call, by its proof: each file\'s walk lstats only the names below it (issue 27 item 2)', async () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'src'))
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 1\n')
    writeFileSync(join(dir, 'src/b.ts'), 'export const b = 2\n')
    await new CallProofs(fs, dir).workspace()
    const proofs = new CallProofs(fs, dir)
    const workspace = proofs.workspaceNow()!
    const calls = eventLoopCalls()
    expect(proofs.containedNow(workspace, 'src/a.ts')).toBe(join(dir, 'src/a.ts'))
    // The first walk hands on the workspace proof's stat as the directory's (the root finder's lookup there).
    expect(proofs.directoryOf(workspace.path, 0)?.info).toEqual(fs.provenWorkspaceInfo(workspace))
    expect(proofs.directoryOf(workspace.path, 0)?.info).toMatchObject({ type: 'directory' })
    expect(proofs.containedNow(workspace, 'src/b.ts')).toBe(join(dir, 'src/b.ts'))
    // 3 + 3 before (the workspace, src and the file, for each file), then 3 + 2 (the first walk
    // looked at the workspace directory again after the proof's realpath and stat).
    expect(calls()).toEqual({ lstat: 2 + 2, realpath: 0, stat: 0 })
    // Each stat tells which walk took it: a caller tells its own proof's from an older one.
    expect([proofs.statOf(join(dir, 'src/a.ts'))?.walk, proofs.statOf(join(dir, 'src/b.ts'))?.walk, proofs.walks]).toEqual([0, 1, 2])
  })

  it('a file swapped after its text was kept is seen by the next call: for a symlink out the proof refuses, for another file the kept text is not used', async () => {
    const dir = tempDir()
    const outside = tempDir()
    mkdirSync(join(dir, 'src'))
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 1\n')
    writeFileSync(join(outside, 'a.ts'), 'SECRET = 1\n')
    const texts = new ProvenTextCache(fs, { ...PROVEN_TEXT_LIMITS, settleMs: Number.NEGATIVE_INFINITY })
    const read = async (proofs: CallProofs) => {
      const workspace = await proofs.workspace()
      return (await texts.read(workspace, await proofs.contained(workspace, 'src/a.ts'), { maxBytes: 1024, proofs })).text
    }
    expect(await read(new CallProofs(fs, dir))).toBe('export const a = 1\n')
    expect(await read(new CallProofs(fs, dir))).toBe('export const a = 1\n')
    // The file for another of the same size (a new inode): the proof's lstat shows it, and it is read.
    renameSync(join(dir, 'src/a.ts'), join(dir, 'src/old.ts'))
    writeFileSync(join(dir, 'src/a.ts'), 'export const b = 2\n')
    expect(await read(new CallProofs(fs, dir))).toBe('export const b = 2\n')
    // The file for a symlink out of the workspace, then its directory for one: refused by the proof.
    unlinkSync(join(dir, 'src/a.ts'))
    symlinkSync(join(outside, 'a.ts'), join(dir, 'src/a.ts'))
    await expect(read(new CallProofs(fs, dir))).rejects.toMatchObject({ code: 'FS_OUTSIDE_WORKSPACE' })
    rmSync(join(dir, 'src'), { recursive: true })
    symlinkSync(outside, join(dir, 'src'))
    await expect(read(new CallProofs(fs, dir))).rejects.toMatchObject({ code: 'FS_OUTSIDE_WORKSPACE' })
  })

  it('answers a warm call\'s proofs as values: the workspace resolved before and files below it make no promise (issue 27 item 2)', async () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'src'))
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 1\n')
    const cold = new CallProofs(fs, dir)
    // Never resolved by this ctx.fs: left to the awaited proof, and undefined while it is pending.
    expect(cold.workspaceNow()).toBeUndefined()
    const pending = cold.workspace()
    expect(cold.workspaceNow()).toBeUndefined()
    const workspace = await pending
    expect(cold.workspaceNow()).toBe(workspace)
    const warm = new CallProofs(fs, dir)
    const promises = countAsyncInits()
    const now = warm.workspaceNow()
    const file = now && warm.containedNow(now, 'src/a.ts')
    const again = now && warm.containedNow(now, join(dir, 'src/a.ts'))
    // Before: a promise for the workspace (an async step and the proof's bookkeeping) and one per file proof.
    expect(promises.stop()).toBe(0)
    expect(now).toEqual(workspace)
    expect([file, again]).toEqual([join(dir, 'src/a.ts'), join(dir, 'src/a.ts')])
    // The promise-taking askers get the same proofs, made once.
    expect(await warm.workspace()).toBe(now)
    expect(await warm.contained(now!, 'src/a.ts')).toBe(file)
  })

  it('refuses a warm workspace swapped for a file in the call, keeps no refusal, and follows a symlink to where it now points', async () => {
    const dir = tempDir()
    const root = join(dir, 'ws')
    mkdirSync(root)
    await new CallProofs(fs, root).workspace()
    renameSync(root, join(dir, 'moved'))
    writeFileSync(root, 'a file now\n')
    const proofs = new CallProofs(fs, root)
    expect(() => proofs.workspaceNow()).toThrow(expect.objectContaining({ code: 'FS_NOT_DIRECTORY' }))
    await expect(proofs.workspace()).rejects.toMatchObject({ code: 'FS_NOT_DIRECTORY' })
    rmSync(root)
    symlinkSync(join(dir, 'moved'), root)
    expect(proofs.workspaceNow()?.path).toBe(join(dir, 'moved'))
  })

  it('keeps no failed proof: a later asker in the call proves again and sees its own answer', async () => {
    const dir = tempDir()
    const proofs = new CallProofs(fs, dir)
    const workspace = await proofs.workspace()
    symlinkSync(tmpdir(), join(dir, 'out'))
    await expect(proofs.contained(workspace, 'out/x.ts')).rejects.toMatchObject({ code: 'FS_OUTSIDE_WORKSPACE' })
    // Pointed back inside: the same spelling is proven afresh.
    unlinkSync(join(dir, 'out'))
    mkdirSync(join(dir, 'out'))
    expect(await proofs.contained(workspace, 'out/x.ts')).toBe(join(dir, 'out/x.ts'))
  })

  it('outlives nothing: a symlink swapped out of the workspace after one call’s proof is refused in the next call', async () => {
    const dir = tempDir()
    const outside = tempDir()
    writeFileSync(join(dir, 'real.ts'), 'inside\n')
    writeFileSync(join(outside, 'real.ts'), 'outside\n')
    symlinkSync(join(dir, 'real.ts'), join(dir, 'link.ts'))
    const first = new CallProofs(fs, dir)
    expect(await first.contained(await first.workspace(), 'link.ts')).toBe(join(dir, 'real.ts'))
    unlinkSync(join(dir, 'link.ts'))
    symlinkSync(join(outside, 'real.ts'), join(dir, 'link.ts'))
    const next = new CallProofs(fs, dir)
    await expect(next.contained(await next.workspace(), 'link.ts')).rejects.toMatchObject({ code: 'FS_OUTSIDE_WORKSPACE' })
  })

  it('is keyed by workspace: a proof against one workspace never answers for another', async () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'inner'))
    writeFileSync(join(dir, 'a.ts'), 'a\n')
    const proofs = new CallProofs(fs, dir)
    const whole = await proofs.workspace()
    const inner = await fs.workspace(join(dir, 'inner'))
    expect(await proofs.contained(whole, join(dir, 'a.ts'))).toBe(join(dir, 'a.ts'))
    await expect(proofs.contained(inner, join(dir, 'a.ts'))).rejects.toMatchObject({ code: 'FS_OUTSIDE_WORKSPACE' })
  })

  it('answers a spelling asked again in the call from its last answer only for that spelling and that workspace (issue 27 item 2)', async () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'inner'))
    writeFileSync(join(dir, 'a.ts'), 'a\n')
    writeFileSync(join(dir, 'inner/a.ts'), 'inner a\n')
    writeFileSync(join(dir, 'b.ts'), 'b\n')
    const proofs = new CallProofs(fs, dir)
    const whole = await proofs.workspace()
    const inner = await fs.workspace(join(dir, 'inner'))
    expect(proofs.containedNow(whole, 'a.ts')).toBe(join(dir, 'a.ts'))
    expect(proofs.containedNow(whole, 'a.ts')).toBe(join(dir, 'a.ts'))
    // Another spelling, another file: its own proof.
    expect(proofs.containedNow(whole, 'b.ts')).toBe(join(dir, 'b.ts'))
    // The same relative spelling in another workspace names another file.
    expect(proofs.containedNow(inner, 'a.ts')).toBe(join(dir, 'inner/a.ts'))
    expect(proofs.containedNow(whole, 'a.ts')).toBe(join(dir, 'a.ts'))
    // The same absolute spelling against a workspace that does not hold it is not answered from the
    // other's proof: spelled outside, it is left to the awaited proof, which refuses it.
    expect(proofs.containedNow(whole, join(dir, 'a.ts'))).toBe(join(dir, 'a.ts'))
    expect(proofs.containedNow(inner, join(dir, 'a.ts'))).toBeUndefined()
    await expect(proofs.contained(inner, join(dir, 'a.ts'))).rejects.toMatchObject({ code: 'FS_OUTSIDE_WORKSPACE' })
    // A refusal is not remembered as the last answer either.
    expect(proofs.containedNow(whole, join(dir, 'a.ts'))).toBe(join(dir, 'a.ts'))
  })

  it('keeps every whole text read in the call by its path, the latest read of a path winning', () => {
    const proofs = new CallProofs(fs, tempDir())
    const a1 = { path: '/w/a.ts', url: 'file:///w/a.ts', text: 'one' }
    const a2 = { path: '/w/a.ts', url: 'file:///w/a.ts', text: 'two' }
    const b = { path: '/w/b.ts', url: 'file:///w/b.ts', text: 'b' }
    expect(proofs.readOf('/w/a.ts')).toBeUndefined()
    proofs.noteRead(a1)
    expect(proofs.readOf('/w/a.ts')).toBe(a1)
    expect(proofs.readOf('/w/b.ts')).toBeUndefined()
    proofs.noteRead(a2)
    expect(proofs.readOf('/w/a.ts')).toBe(a2)
    proofs.noteRead(b)
    expect(proofs.readOf('/w/a.ts')).toBe(a2)
    expect(proofs.readOf('/w/b.ts')).toBe(b)
    proofs.noteRead(a1)
    expect(proofs.readOf('/w/a.ts')).toBe(a1)
    expect(proofs.readOf('/w/b.ts')).toBe(b)
  })
})
