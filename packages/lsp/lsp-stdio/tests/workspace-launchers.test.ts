import { describe, expect, it } from 'vitest'
import { SERVER_CATALOG } from '../src/index.ts'
import { launcherRunsWorkspaceCode } from '../src/workspace-launchers.ts'

describe('launcherRunsWorkspaceCode', () => {
  it('names the launchers that resolve the working directory first', () => {
    expect(launcherRunsWorkspaceCode('python3', ['-m', 'pylsp'])).toBe("python3 -m imports the workspace's own modules first")
    expect(launcherRunsWorkspaceCode('/usr/bin/python3.12', ['-c', 'import pylsp'])).toContain('-c imports')
    expect(launcherRunsWorkspaceCode('/usr/local/bin/npx', ['some-ls', '--stdio'])).toContain('npx runs')
    expect(launcherRunsWorkspaceCode('uvx', ['ruff-lsp'])).toContain('uvx runs')
    expect(launcherRunsWorkspaceCode('pnpm', ['dlx', 'x'])).toContain('pnpm dlx')
    expect(launcherRunsWorkspaceCode('uv', ['run', 'pylsp'])).toContain('uv run')
    expect(launcherRunsWorkspaceCode('node', ['--conditions', 'x', 'server.js'])).toBe('node runs server.js, a path in the workspace')
    expect(launcherRunsWorkspaceCode('python', ['tools/ls.py'])).toContain('runs tools/ls.py')
  })

  it('leaves a server executable, an absolute script and an isolated python alone', () => {
    expect(launcherRunsWorkspaceCode('python3', ['-I', '-m', 'pylsp'])).toBeUndefined()
    expect(launcherRunsWorkspaceCode('node', ['--conditions', 'dsh-built', '/opt/ls/server.js', '--stdio'])).toBeUndefined()
    expect(launcherRunsWorkspaceCode('python3', ['/opt/ls/main.py'])).toBeUndefined()
    expect(launcherRunsWorkspaceCode('pnpm', ['--version'])).toBeUndefined()
    for (const [id, entry] of Object.entries(SERVER_CATALOG)) expect(launcherRunsWorkspaceCode(entry.server.command, entry.server.args ?? []), id).toBeUndefined()
  })
})
