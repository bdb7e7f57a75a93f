import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { ExitCode } from '../src/exit.ts'
import { dsh, json, killRunning, removeTempDirs } from './helpers.ts'

afterEach(killRunning)
afterAll(removeTempDirs)

const BEFORE_EXIT = pathToFileURL(join(import.meta.dirname, 'fixtures', 'before-exit', 'register.mjs')).href
const DRAINED = 'before-exit fixture: the event loop drained'
const watched = () => ({ NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${BEFORE_EXIT}`].filter(Boolean).join(' ') })

// Issue 27 item 5: once a command has stopped its host and written its answer, `dsh` ends at once.
// Returning to the event loop instead let Node free the whole heap and finish a pending collection
// first (about 6 % of `dsh tools`' CPU), and a stray handle could hold the process for a second.
describe('dsh ends once its answer is written', () => {
  it('dsh tools --json --preset base exits without draining the event loop again, its answer whole', async () => {
    const run = await dsh(['tools', '--json', '--preset', 'base'], { env: watched() })
    expect(run.code, run.stderr).toBe(0)
    expect(json<{ tools: { name: string }[] }>(run).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['web_fetch', 'web_search', 'skill']))
    expect(run.stderr).not.toContain(DRAINED)
  })

  it('a failed call keeps its exit code and its answer', async () => {
    const run = await dsh(['call', 'no_such_tool', '{}', '--preset', 'base'], { env: watched() })
    expect(run.code, run.stderr).toBe(ExitCode.TOOL_ERROR)
    expect(run.stdout).toContain('UNKNOWN_TOOL')
    expect(run.stderr).not.toContain(DRAINED)
  })

  it('the fixture does see a process that drains its loop', () => {
    const run = spawnSync(process.execPath, [`--import=${BEFORE_EXIT}`, '-e', 'setTimeout(() => {}, 1)'], { encoding: 'utf8' })
    expect(run.status).toBe(0)
    expect(run.stderr).toContain(DRAINED)
  })
})
