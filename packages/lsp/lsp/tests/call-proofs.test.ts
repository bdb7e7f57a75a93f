// Issue 27 item 2: one lsp call proved its workspace and its files twice (the provider, then the
// tool's line text). CallProofs makes each proof once per call; nothing of it outlives the call, so
// a symlink swapped out of the workspace between two calls is refused by the second. Proofs are
// counted, not timed.
import { mkdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FileSystem as FileSystemService } from 'dsh-core'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { CallProofs } from '../src/index.ts'
import { useFsHost } from './fs-host.ts'

describe('CallProofs', () => {
  const host = useFsHost('call-proofs-')
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
    const contained = vi.spyOn(fs, 'contained')
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
})
