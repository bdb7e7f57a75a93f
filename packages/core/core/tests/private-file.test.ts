// Files that can hold a secret (issue 26 item 6): 0600 in a 0700 directory, and a directory or file
// that already exists wider is tightened, not left as it was (mkdir and writeFile keep old modes).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ensurePrivateDirectory, writeFileAtomically, writePrivateFile } from '../src/index.ts'

const scratch = mkdtempSync(join(tmpdir(), 'dsh-private-file-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const mode = (path: string) => statSync(path).mode & 0o777

describe('writePrivateFile', () => {
  it('creates the directory 0700 and the file 0600', async () => {
    const file = join(scratch, 'fresh', 'home', 'secret.yml')
    await writePrivateFile(file, 'token: x\n')
    expect(readFileSync(file, 'utf8')).toBe('token: x\n')
    expect(mode(file)).toBe(0o600)
    expect(mode(join(scratch, 'fresh', 'home'))).toBe(0o700)
  })

  it('tightens an existing 0755 directory and replaces an existing 0644 file with a 0600 one', async () => {
    const home = join(scratch, 'wide')
    mkdirSync(home, { mode: 0o755 })
    chmodSync(home, 0o755)
    const file = join(home, 'mcp.yml')
    writeFileSync(file, 'old\n', { mode: 0o644 })
    chmodSync(file, 0o644)
    await writePrivateFile(file, 'new\n')
    expect(mode(home)).toBe(0o700)
    expect(mode(file)).toBe(0o600)
    expect(readFileSync(file, 'utf8')).toBe('new\n')
    expect(readdirSync(home)).toEqual(['mcp.yml'])
  })

  it('ensurePrivateDirectory tightens without writing anything', async () => {
    const home = join(scratch, 'listable')
    mkdirSync(home, { mode: 0o777 })
    chmodSync(home, 0o777)
    await ensurePrivateDirectory(home)
    expect(mode(home)).toBe(0o700)
  })

  it('a failed write leaves the old file and no temporary behind', async () => {
    const home = join(scratch, 'failing')
    mkdirSync(home)
    const file = join(home, 'target')
    mkdirSync(file) // a directory where the file should go: the rename fails
    await expect(writeFileAtomically(file, 'x', 0o600)).rejects.toThrow()
    expect(readdirSync(home)).toEqual(['target'])
  })
})
