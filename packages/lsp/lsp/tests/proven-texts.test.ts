// Issue 27 item 2: the source of every lsp query, and the files its answers point into, were read
// whole on every call. ProvenTextCache keeps what ctx.fs read and reuses it while the file's
// identity, size and change times are those it had then; any change, a swap for another inode or a
// symlink out of the workspace is a miss, read (and refused) as ctx.fs always does. Reads are
// counted, not timed.
import { renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { untracked, type FileSystem as FileSystemService, type Workspace } from 'dsh-core'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { ProvenTextCache, SETTLE_MS, PROVEN_TEXT_LIMITS } from '../src/index.ts'
import { useFsHost } from './fs-host.ts'

describe('ProvenTextCache', () => {
  const host = useFsHost('proven-texts-')
  const tempDir = host.tempDir
  let fs: FileSystemService
  beforeAll(() => {
    fs = host.fs()
  })

  async function setup(text = 'export const a = 1\n'): Promise<{ workspace: Workspace; path: string; reads: () => number }> {
    const dir = tempDir()
    writeFileSync(join(dir, 'a.ts'), text)
    const workspace = await fs.workspace(dir)
    const path = await fs.contained(workspace, 'a.ts')
    const spy = vi.spyOn(fs, 'readContainedText')
    return { workspace, path, reads: () => spy.mock.calls.length }
  }

  /**
   * No settling: what is kept is reused from the next read on (the tests change files in ways that
   * always move their stat). Not 0: a change time can lie a fraction of a millisecond past `Date.now()`.
   */
  const eager = { ...PROVEN_TEXT_LIMITS, settleMs: Number.NEGATIVE_INFINITY }

  it('reads an unchanged file once', async () => {
    const { workspace, path, reads } = await setup()
    const texts = new ProvenTextCache(fs, eager)
    const first = await texts.read(workspace, path, { maxBytes: 1024 })
    const second = await texts.read(workspace, path, { maxBytes: 1024 })
    expect(second).toEqual(first)
    expect(second.text).toBe('export const a = 1\n')
    expect(reads()).toBe(1)
  })

  it('reads again after a change in place, even to text of the same size', async () => {
    const { workspace, path, reads } = await setup('export const a = 1\n')
    const texts = new ProvenTextCache(fs, eager)
    await texts.read(workspace, path, { maxBytes: 1024 })
    writeFileSync(path, 'export const b = 2\n')
    // Same size; a modification time unlike the first (which was "now") whatever the clock's tick.
    utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000))
    expect((await texts.read(workspace, path, { maxBytes: 1024 })).text).toBe('export const b = 2\n')
    expect(reads()).toBe(2)
  })

  it('reads again when the file is replaced by another (an editor’s atomic save)', async () => {
    const { workspace, path, reads } = await setup('export const a = 1\n')
    const texts = new ProvenTextCache(fs, eager)
    await texts.read(workspace, path, { maxBytes: 1024 })
    writeFileSync(`${path}.tmp`, 'export const c = 3\n')
    renameSync(`${path}.tmp`, path)
    expect((await texts.read(workspace, path, { maxBytes: 1024 })).text).toBe('export const c = 3\n')
    expect(reads()).toBe(2)
  })

  it('proves a changed file once: its read checks the path the caller proved (at most one realpath), it does not resolve it again (issue 27 item 2)', async () => {
    const { workspace, path } = await setup()
    // Every flavour of ctx.fs's calls: the thread pool's, the event loop's, and those made in one go.
    type Io = { realpath(path: string): unknown }
    const raw = untracked(fs) as unknown as Record<'io' | 'proven' | 'provenCalls', Io>
    const resolved: string[] = []
    const originals = { io: raw.io, proven: raw.proven, provenCalls: raw.provenCalls }
    for (const field of ['io', 'proven', 'provenCalls'] as const) {
      const io = originals[field]
      raw[field] = Object.create(io, { realpath: { value: (at: string) => (resolved.push(at), io.realpath(at)) } }) as Io
    }
    try {
      const texts = new ProvenTextCache(fs, eager)
      expect((await texts.read(workspace, path, { maxBytes: 1024 })).text).toBe('export const a = 1\n')
    } finally {
      Object.assign(raw, originals)
    }
    // Never resolved again; checked by one realpath (identify), or on Linux by the name of what it opened (none).
    expect(resolved).toEqual(process.platform === 'linux' ? [] : [path])
  })

  it('refuses a file proven, then swapped for a symlink out of the workspace before its first read', async () => {
    const { workspace, path } = await setup('export const a = 1\n')
    const outside = join(tempDir(), 'secret.ts')
    writeFileSync(outside, 'export const secret = 1\n')
    rmSync(path)
    symlinkSync(outside, path)
    const texts = new ProvenTextCache(fs, eager)
    await expect(texts.read(workspace, path, { maxBytes: 1024 })).rejects.toMatchObject({ code: 'FS_OUTSIDE_WORKSPACE' })
  })

  it('refuses a kept file swapped for a symlink out of the workspace, as ctx.fs does', async () => {
    const { workspace, path } = await setup('export const a = 1\n')
    const outside = join(tempDir(), 'secret.ts')
    writeFileSync(outside, 'export const secret = 1\n')
    const texts = new ProvenTextCache(fs, eager)
    await texts.read(workspace, path, { maxBytes: 1024 })
    rmSync(path)
    symlinkSync(outside, path)
    await expect(texts.read(workspace, path, { maxBytes: 1024 })).rejects.toMatchObject({ code: 'FS_OUTSIDE_WORKSPACE' })
  })

  it('keeps nothing of a file changed less than SETTLE_MS before it was read (its times could repeat)', async () => {
    expect(SETTLE_MS).toBeGreaterThan(0)
    const { workspace, path, reads } = await setup()
    const texts = new ProvenTextCache(fs)
    await texts.read(workspace, path, { maxBytes: 1024 })
    await texts.read(workspace, path, { maxBytes: 1024 })
    expect(reads()).toBe(2)
  })

  it('keeps the cap of the read: a kept text larger than maxBytes is FS_TOO_LARGE', async () => {
    const { workspace, path } = await setup('export const a = 1\n')
    const texts = new ProvenTextCache(fs, eager)
    await texts.read(workspace, path, { maxBytes: 1024 })
    await expect(texts.read(workspace, path, { maxBytes: 4 })).rejects.toMatchObject({ code: 'FS_TOO_LARGE' })
  })

  it('keeps no more than maxTotalBytes, dropping the least recently used', async () => {
    const { workspace, path, reads } = await setup('1234567890\n')
    const other = join(workspace.path, 'b.ts')
    writeFileSync(other, 'abcdefghij\n')
    const texts = new ProvenTextCache(fs, { ...eager, maxTotalBytes: 15 })
    await texts.read(workspace, path, { maxBytes: 1024 })
    await texts.read(workspace, other, { maxBytes: 1024 })
    await texts.read(workspace, other, { maxBytes: 1024 })
    expect(reads()).toBe(2)
    await texts.read(workspace, path, { maxBytes: 1024 })
    expect(reads()).toBe(3)
  })
})
