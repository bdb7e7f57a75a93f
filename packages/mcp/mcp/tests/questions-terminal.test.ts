// `dsh call` answers a server's questions on a terminal (issue 28 item 4): a form field by field
// (defaults shown, choices numbered, yes/no, each line checked against the requested schema and
// asked again), a URL printed with its host and waited on; end of input cancels. Without a terminal
// and without --yes the question is declined at once. Real SDK servers of both revisions ask; dsh
// is typed into as a person would. One form, one URL and one end of input run the real dsh on a pty
// (util-linux `script`: it exits once answered, Ctrl-D is the tty's end of input); the other
// dialogues run the CLI's main in this worker on streams that say they are a terminal
// (fixtures/terminal.ts), the same questioner code, about a second of CPU less each.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dshInWorker } from './fixtures/dsh-run.ts'
import { startQuestionServers, writeQuestionsOverlay, type QuestionServers } from './fixtures/question-server.ts'
import { DshTerminal, WorkerTerminal, type Terminal } from './fixtures/terminal.ts'

const scratch = mkdtempSync(join(tmpdir(), 'dsh-mcp-questions-'))
let servers: QuestionServers
let overlay: string
const terminals: Terminal[] = []

beforeAll(async () => {
  servers = await startQuestionServers()
  overlay = writeQuestionsOverlay(servers, join(scratch, 'questions.yml'))
}, 60_000)

afterAll(async () => {
  for (const terminal of terminals.splice(0)) terminal.kill()
  await servers?.close()
  rmSync(scratch, { recursive: true, force: true })
})

/** `dsh call <tool> {}` on a terminal: `pty`, the real dsh on a pseudo-terminal; `worker`, the CLI's main in this worker. */
function call(tool: string, on: 'pty' | 'worker'): Terminal {
  const home = mkdtempSync(join(scratch, 'home-'))
  const args = ['call', tool, '{}', '--preset', 'base', '--config', overlay, '--cwd', home]
  const env = { ...process.env, DSH_HOME: home }
  const terminal = on === 'pty' ? new DshTerminal(args, env) : new WorkerTerminal(args, env)
  terminals.push(terminal)
  return terminal
}

describe.concurrent.each(['new', 'old'])('dsh call on a terminal, the %s revision asking', (server) => {
  it('a form is asked field by field, each answer checked against its schema, and the answers reach the server', async () => {
    const terminal = call(`mcp__${server}__profile`, server === 'new' ? 'pty' : 'worker')
    let at = await terminal.waitFor(`the MCP server ${server} asks: Tell us about yourself.\r\n  Every field is checked.`)
    at = await terminal.answer('Name [Ada]: ', 'A', at)
    at = await terminal.answer('at least 2 characters', 'Grace', at)
    at = await terminal.answer('Age: ', '', at)
    at = await terminal.answer('this field is required', 'many', at)
    at = await terminal.answer('a number is expected', '200', at)
    at = await terminal.answer('at most 150', '36.5', at)
    at = await terminal.answer('a whole number is expected', '36', at)
    at = await terminal.answer('Colour — pick one: 1) Red  2) Green  3) Blue [g]: ', '3', at)
    at = await terminal.answer('Subscribe (optional) [y/N]: ', 'y', at)
    await terminal.answer(`Send these answers to ${server}? [Y/n] `, '', at)
    expect(await terminal.exited, terminal.output).toBe(0)
    expect(terminal.output).toContain(JSON.stringify({ action: 'accept', content: { name: 'Grace', age: 36, colour: 'b', subscribe: true } }))
  })

  it('a URL is printed with its host, never opened, and dsh waits until the person is done there', async () => {
    const terminal = call(`mcp__${server}__visit`, server === 'old' ? 'pty' : 'worker')
    const at = await terminal.waitFor(`the MCP server ${server} asks you to open a web page: Open this page to link your account.\r\n  https://accounts.example.test/link?code=1234\r\n  (host: accounts.example.test)`)
    await terminal.answer('Press Enter once you are done there, or type n to decline: ', '', at)
    expect(await terminal.exited, terminal.output).toBe(0)
    expect(terminal.output).toMatch(/\r\naccept\r\n/)

    const declining = call(`mcp__${server}__visit`, 'worker')
    await declining.answer('or type n to decline: ', 'n')
    expect(await declining.exited, declining.output).toBe(0)
    expect(declining.output).toMatch(/\r\ndecline\r\n/)
  })
})

describe.concurrent('dsh call on a terminal, one revision each', () => {
  it('empty lines take the defaults; a choice can be typed by its label (2025-11-25)', async () => {
    const terminal = call('mcp__old__profile', 'worker')
    let at = await terminal.answer('Name [Ada]: ', '')
    at = await terminal.answer('Age: ', '7', at)
    at = await terminal.answer('[g]: ', 'red', at)
    at = await terminal.answer('[y/N]: ', '', at)
    await terminal.answer('? [Y/n] ', 'y', at)
    expect(await terminal.exited, terminal.output).toBe(0)
    expect(terminal.output).toContain(JSON.stringify({ action: 'accept', content: { name: 'Ada', age: 7, colour: 'r', subscribe: false } }))
  })

  it('n at the end declines the form; end of input cancels it (2026-07-28)', async () => {
    const declining = call('mcp__new__ask', 'worker')
    const at = await declining.answer('Name [Ada]: ', 'Grace')
    await declining.answer('? [Y/n] ', 'n', at)
    expect(await declining.exited, declining.output).toBe(0)
    expect(declining.output).toMatch(/\r\ndecline\r\n/)

    const cancelling = call('mcp__new__ask', 'pty')
    await cancelling.waitFor('Name [Ada]: ')
    cancelling.endInput()
    expect(await cancelling.exited, cancelling.output).toBe(0)
    expect(cancelling.output).toMatch(/\r\ncancel\r\n/)
  })
})

// In this worker: its stdin is a pipe, as a dsh without a terminal has.
describe('dsh call with nobody at a terminal', () => {
  it('without --yes a form is declined at once (MCP_QUESTION_DECLINED on stderr); --yes accepts its defaults', async () => {
    const home = mkdtempSync(join(scratch, 'home-'))
    const common = ['--preset', 'base', '--config', overlay, '--cwd', home]
    const runs = await Promise.all(
      ['new', 'old'].map(async (server) => ({
        declined: await dshInWorker(['call', `mcp__${server}__ask`, '{}', ...common], home),
        accepted: await dshInWorker(['call', `mcp__${server}__ask`, '{}', '--yes', ...common], home),
      })),
    )
    for (const { declined, accepted } of runs) {
      expect(declined.code, declined.stderr).toBe(0)
      expect(declined.stdout.trim()).toBe('decline')
      expect(declined.stderr).toContain('MCP_QUESTION_DECLINED')
      expect(accepted.stdout.trim(), accepted.stderr).toBe('Hello Ada')
    }
  })

  it('--yes declines a URL question, and a form with a required field without a default, with one stderr line saying why', async () => {
    const home = mkdtempSync(join(scratch, 'home-'))
    const common = ['--yes', '--preset', 'base', '--config', overlay, '--cwd', home]
    for (const server of ['new', 'old']) {
      const visit = await dshInWorker(['call', `mcp__${server}__visit`, '{}', ...common], home)
      expect(visit.code, visit.stderr).toBe(0)
      expect(visit.stdout.trim()).toBe('decline')
      expect(visit.stderr.trimEnd().split('\n')).toEqual([
        `dsh: the MCP server ${server} asks you to open a web page (https://accounts.example.test/link?code=1234): declined, as --yes accepts only a form whose every required field has a default; a web page needs a person (dsh call without --yes, on a terminal) [MCP_QUESTION_DECLINED]`,
      ])

      const profile = await dshInWorker(['call', `mcp__${server}__profile`, '{}', ...common], home)
      expect(profile.code, profile.stderr).toBe(0)
      expect(profile.stdout.trim()).toBe('{"action":"decline"}')
      expect(profile.stderr.trimEnd().split('\n')).toEqual([
        `dsh: the MCP server ${server} asks: Tell us about yourself. Every field is checked. — declined, as --yes accepts only a form whose every required field has a default, and age has none (dsh call without --yes, on a terminal, asks for it) [MCP_QUESTION_DECLINED]`,
      ])
    }
  })
})
