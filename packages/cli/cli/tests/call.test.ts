import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { dsh, dshIn, ECHO_PRESET, json, killRunning, oneStderrLine, removeTempDirs, ROOT, tempDir } from './helpers.ts'
import { readFile } from 'node:fs/promises'

const P = ['--preset', ECHO_PRESET]
let presetBytes: Buffer

beforeAll(async () => {
  presetBytes = await readFile(ECHO_PRESET)
})

afterEach(async () => {
  killRunning()
  await removeTempDirs()
})

afterAll(async () => {
  // No command ever writes to the preset it booted.
  expect((await readFile(ECHO_PRESET)).equals(presetBytes)).toBe(true)
})

describe('dsh --help', () => {
  it('prints usage and exits 0', async () => {
    const run = await dsh(['--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^usage: dsh <command>/)
    for (const command of ['status', 'tools', 'call', 'context']) expect(run.stdout).toContain(command)
    expect(run.stderr).toBe('')
  })

  it('also as -h after a command', async () => {
    const run = await dshIn(['call', '-h'])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^usage: dsh/)
  })
})

describe('dsh tools', () => {
  it('--json lists echo with its JSON Schema', async () => {
    const run = await dshIn(['tools', '--json', ...P])
    expect(run.code, run.stderr).toBe(0)
    const { tools } = json<{ tools: { name: string; description: string; parameters: Record<string, any> }[] }>(run)
    expect(tools.map((t) => t.name)).toEqual(['echo'])
    const [echo] = tools
    expect(Object.keys(echo!).sort()).toEqual(['description', 'name', 'parameters'])
    expect(echo!.description).toBe('Echoes the text back. An example tool.')
    expect(echo!.parameters).toMatchObject({
      type: 'object',
      properties: {
        text: { type: 'string', description: 'What to echo back.' },
        delayMs: { type: 'integer', minimum: 0, maximum: 60000 },
        fail: { type: 'boolean' },
      },
      required: ['text'],
      additionalProperties: false,
    })
    expect(echo!.parameters).not.toHaveProperty('$schema')
  })

  it('prints a readable list without --json', async () => {
    const run = await dshIn(['tools', ...P])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('echo\n  Echoes the text back.')
    expect(run.stdout).toContain('parameters: {"type":"object"')
  })
})

describe('dsh call', () => {
  it('runs echo: exit 0 and the success ToolResult', async () => {
    const run = await dsh(['call', 'echo', '{"text":"hi"}', '--json', ...P])
    expect(run.code, run.stderr).toBe(0)
    expect(json(run)).toEqual({ isError: false, value: { text: 'hi', workspace: ROOT }, content: [{ type: 'text', text: 'hi' }] })
  })

  it('prints what the model sees without --json', async () => {
    const run = await dshIn(['call', 'echo', '{"text":"plain words"}', ...P])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toBe('plain words\n')
  })

  it('answers an unknown tool with exit 1 and UNKNOWN_TOOL', async () => {
    const run = await dsh(['call', 'no_such_tool', '{}', '--json', ...P])
    expect(run.code).toBe(1)
    const result = json(run)
    expect(result.isError).toBe(true)
    expect(result.error.code).toBe('UNKNOWN_TOOL')
    expect(result.content[0].text).toMatch(/^Error: /)
  })

  it.each([
    ['a wrong type', '{"text":5}'],
    ['an unknown property', '{"text":"x","extra":true}'],
    ['a missing required property', '{}'],
    ['a value out of range', '{"text":"x","delayMs":-1}'],
    ['a non-object', '[1,2]'],
  ])('answers %s with exit 1 and INVALID_ARGS', async (_label, args) => {
    const run = await dshIn(['call', 'echo', args, '--json', ...P])
    expect(run.code).toBe(1)
    expect(json(run).error.code).toBe('INVALID_ARGS')
  })

  it('defaults the arguments to {} (so echo reports its missing text)', async () => {
    const run = await dshIn(['call', 'echo', '--json', ...P])
    expect(run.code).toBe(1)
    expect(json(run).error.code).toBe('INVALID_ARGS')
  })

  it('answers a body overrunning the preset timeout (500 ms) with TOOL_TIMEOUT', async () => {
    const run = await dshIn(['call', 'echo', '{"text":"x","delayMs":2000}', '--json', ...P])
    expect(run.code).toBe(1)
    const result = json(run)
    expect(result.error.code).toBe('TOOL_TIMEOUT')
    expect(result.error.message).toBe('tool call timed out after 500 ms')
  })

  it('answers a failing body with exit 1 and an error result', async () => {
    const run = await dshIn(['call', 'echo', '{"text":"x","fail":true}', '--json', ...P])
    expect(run.code).toBe(1)
    expect(json(run)).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: echo was asked to fail' }],
      error: { message: 'echo was asked to fail', code: 'TOOL_FAILED', name: 'Error' },
    })
  })

  it('shows the error code in text mode', async () => {
    const run = await dshIn(['call', 'echo', '{"text":"x","fail":true}', ...P])
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('Error: echo was asked to fail\n[TOOL_FAILED]\n')
  })

  it('refuses arguments that are not JSON with exit 2 and one line on stderr ending with its code', async () => {
    const run = await dsh(['call', 'echo', '{text: hi}', '--json', ...P])
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toMatch(/^dsh: the tool arguments are not valid JSON: .* \[CALL_ARGS_INVALID\]$/)
    expect(run.stdout).toBe('')
  })

  it('arguments that are not JSON for a tool that does not exist: the same coded line, before any lookup', async () => {
    // It was one plain line with no code a harness could route on.
    const run = await dshIn(['call', 'nosuch', '{', ...P])
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toMatch(/^dsh: the tool arguments are not valid JSON: .* \[CALL_ARGS_INVALID\]$/)
  })

  it('reads the arguments from stdin with -', async () => {
    const run = await dsh(['call', 'echo', '-', '--json', ...P], { input: '{\n  "text": "from stdin ✓"\n}\n' })
    expect(run.code, run.stderr).toBe(0)
    expect(json(run).value.text).toBe('from stdin ✓')
  })

  it('refuses non-JSON stdin with exit 2', async () => {
    const run = await dshIn(['call', 'echo', '-', '--json', ...P], { input: 'not json' })
    expect(run.code).toBe(2)
    expect(oneStderrLine(run)).toMatch(/^dsh: the tool arguments are not valid JSON: .* \[CALL_ARGS_INVALID\]$/)
  })

  it('passes --cwd to the tool as the session workspace', async () => {
    const dir = await tempDir()
    const run = await dshIn(['call', 'echo', '{"text":"w"}', '--json', '--cwd', dir, ...P])
    expect(run.code, run.stderr).toBe(0)
    expect(json(run).value.workspace).toBe(dir)
  })

  it('resolves a relative --cwd against the directory dsh runs in', async () => {
    const dir = await tempDir()
    await mkdir(join(dir, 'project'))
    const run = await dshIn(['call', 'echo', '{"text":"w"}', '--json', '--cwd', 'project', '--preset', ECHO_PRESET], { cwd: dir })
    expect(run.code, run.stderr).toBe(0)
    expect(json(run).value.workspace).toBe(join(dir, 'project'))
  })

  it('resolves a relative --preset against the directory dsh runs in', async () => {
    const run = await dshIn(['call', 'echo', '{"text":"w"}', '--json', '--preset', 'echo/preset.yml'], { cwd: join(ROOT, 'examples') })
    expect(run.code, run.stderr).toBe(0)
    expect(json(run).value.workspace).toBe(join(ROOT, 'examples'))
  })
})

describe('dsh context', () => {
  it('--message hi --json prints the messages including the user message', async () => {
    const run = await dshIn(['context', '--message', 'hi', '--json', ...P])
    expect(run.code, run.stderr).toBe(0)
    const { messages } = json<{ messages: { role: string; source: string; text: string }[] }>(run)
    expect(messages).toContainEqual({ role: 'user', source: 'user', text: 'hi' })
    for (const message of messages) expect(Object.keys(message).sort()).toEqual(['role', 'source', 'text'])
  })

  it('runs one pre-step per message, in order', async () => {
    const run = await dshIn(['context', '--message', 'first', '--message', 'second', '--json', ...P])
    expect(run.code, run.stderr).toBe(0)
    const users = json<{ messages: { role: string; text: string }[] }>(run).messages.filter((m) => m.role === 'user')
    expect(users.map((m) => m.text)).toEqual(['first', 'second'])
  })

  it('prints an empty list with no messages and no prompt sections', async () => {
    const run = await dshIn(['context', '--json', ...P])
    expect(run.code, run.stderr).toBe(0)
    expect(json(run)).toEqual({ messages: [] })
  })

  it('--search where nothing is withheld says there is no tool_search, not "no tool named"', async () => {
    const run = await dshIn(['context', '--search', 'echo', '--search', 'other', '--json', ...P])
    expect(run.code, run.stderr).toBe(0)
    const { messages } = json<{ messages: { role: string; source: string; text: string }[] }>(run)
    expect(messages.filter((m) => m.source === 'tool_search')).toEqual([{ role: 'tool', source: 'tool_search', text: expect.stringContaining('withholds no tool') }])
    expect(messages.at(-1)).toMatchObject({ role: 'system', source: 'tools', text: expect.not.stringContaining('tool_search') })
  })

  it('prints role and source headers without --json', async () => {
    const run = await dshIn(['context', '--message', 'hello there', ...P])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toBe('[user:user]\nhello there\n')
  })
})
