// The bridge against the SDK-built fixture server over stdio (reference mcp.md §12: 20–30, 45–70,
// 99–106): discovery, names on the wire, results, errors, list_changed, pagination, filters, the
// environment scrub, huge results.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { eventually, fixtureRow, sharedRigOf, startRig, stopRigs } from './fixtures/rig.ts'

afterEach(stopRigs)

// One fixture server for the cases that only list its tools or call them and read the answers
// (each started its own before; what they check is the same on a server that has served others).
const sharedRig = sharedRigOf(fixtureRow())

describe('discovery', () => {
  it('registers every tool under its public name, never the raw one, and calls with the raw name', async () => {
    const rig = await sharedRig()
    const names = rig.toolNames()
    expect(names).toContain('mcp__fixture__add')
    expect(names).toContain('mcp__fixture__admin_reset_2d9bb2dfe9aa')
    expect(names).not.toContain('add')
    expect(names.every((name) => /^[A-Za-z0-9_-]{1,64}$/.test(name))).toBe(true)
    expect(await rig.text('mcp__fixture__add', { a: 2, b: 3 })).toBe('5')
    expect(await rig.text('mcp__fixture__greet', { name: 'World' })).toBe('Hello, World!')
    expect(await rig.text('mcp__fixture__admin_reset_2d9bb2dfe9aa')).toBe('reset done')
    const hello = names.find((name) => name.startsWith('mcp__fixture__h_llo_'))!
    expect(hello).toMatch(/^mcp__fixture__h_llo_[0-9a-f]{12}$/)
    expect(await rig.text(hello)).toBe('bonjour')
  })

  it('passes description and input schema through unchanged', async () => {
    const rig = await sharedRig()
    const add = rig.app.tools.catalog({ all: true }).find((tool) => tool.name === 'mcp__fixture__add')
    expect(add).toEqual({
      name: 'mcp__fixture__add',
      description: 'Adds two numbers.',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    })
  })

  it('fetches every page of a paginated list before registering', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ env: { FIXTURE_EXTRA_TOOLS: '250', FIXTURE_PAGE_SIZE: '7' } }))
    const names = rig.toolNames()
    expect(names.filter((name) => name.startsWith('mcp__fixture__tool-'))).toHaveLength(250)
    expect(await rig.text('mcp__fixture__tool-00249', { x: 1 })).toBe('250')
  })

  it('applies enabledTools then disabledTools by raw name, and warns about names that match nothing', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ enabledTools: ['add', 'greet', 'admin.reset', 'no-such-tool'], disabledTools: ['greet'] }))
    expect(rig.toolNames()).toEqual(['mcp__fixture__add', 'mcp__fixture__admin_reset_2d9bb2dfe9aa'])
    expect(rig.logged('enabledTools/disabledTools name tools the server does not list: no-such-tool')).toBe(true)
  })

  it('re-syncs on list_changed: added tools appear, removed ones go, the rest stay', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow())
    expect(await rig.text('mcp__fixture__set-tools', { add: ['alpha', 'beta'] })).toBe('tools: alpha,beta')
    await eventually(() => expect(rig.toolNames()).toEqual(expect.arrayContaining(['mcp__fixture__alpha', 'mcp__fixture__beta'])))
    expect(await rig.text('mcp__fixture__alpha')).toBe('dynamic alpha')
    await rig.text('mcp__fixture__set-tools', { remove: ['alpha'] })
    await eventually(() => expect(rig.toolNames()).not.toContain('mcp__fixture__alpha'))
    expect(rig.toolNames()).toContain('mcp__fixture__beta')
    expect(rig.toolNames()).toContain('mcp__fixture__add')
  })

  it('with a foreign tool holding one of its names, registers no tool at all and says why in status', async () => {
    const rig = await startRig()
    rig.app.tools.register({ name: 'mcp__fixture__add', description: 'A squatter.', parameters: { type: 'object' }, execute: async () => 'squatter' })
    await rig.add(fixtureRow())
    expect(rig.toolNames()).toEqual(['mcp__fixture__add'])
    expect(await rig.text('mcp__fixture__add')).toBe('"squatter"')
    const status = await rig.status()
    expect(status.state).toBe('unavailable')
    expect(status.detail).toContain('tool registration failed, so no tools are registered')
    expect(status.tools).toEqual([])
  })

  it('with required: true, the same conflict fails activation and leaves the squatter', async () => {
    const rig = await startRig()
    rig.app.tools.register({ name: 'mcp__fixture__add', description: 'A squatter.', parameters: { type: 'object' }, execute: async () => 'squatter' })
    const fork = await rig.add(fixtureRow({ required: true }))
    expect(fork.status).toBe(3)
    expect(fork.error).toMatchObject({ code: 'MCP_STARTUP_FAILED', cause: { code: 'MCP_NAME_CONFLICT' } })
    expect(rig.toolNames()).toEqual(['mcp__fixture__add'])
  })
})

describe('results', () => {
  it('text: the value keeps the blocks, the model sees the text', async () => {
    const rig = await sharedRig()
    expect(await rig.call('mcp__fixture__echo', { message: 'hi' })).toEqual({
      isError: false,
      value: { content: [{ type: 'text', text: 'Echo: hi' }] },
      content: [{ type: 'text', text: 'Echo: hi' }],
    })
  })

  it('image: the value keeps the base64, the model sees a one-line note in place', async () => {
    const rig = await sharedRig()
    const result = await rig.call('mcp__fixture__image')
    if (result.isError) throw new Error(JSON.stringify(result))
    expect((result.value as { content: { type: string; data?: string }[] }).content[1]).toMatchObject({ type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBOR/) })
    const text = result.content[0]!.text
    expect(text.split('\n')).toEqual(['before', expect.stringMatching(/^\[image: image\/png, \d+ bytes; the data is kept in the result value/), 'after'])
    expect(text).not.toContain('iVBOR')
  })

  it('every other kind of block leaves an ordered trace', async () => {
    const rig = await sharedRig()
    const lines = (await rig.text('mcp__fixture__mixed')).split('\n')
    expect(lines).toHaveLength(10)
    expect(lines.slice(0, 2)).toEqual(['line1', 'line2'])
    expect(lines[2]).toContain('[audio: audio/mp3')
    expect(lines[3]).toContain('[embedded resource: fixture://r, text/plain')
    expect(lines[4]).toBe('Resource link: Design (https://example.test/design)')
    expect(lines[6]).toContain('"video"')
    expect(lines[9]).toContain('[image: unknown media type')
  })

  it('isError: a coded MCP_TOOL_ERROR carrying the server text; no value', async () => {
    const rig = await sharedRig()
    expect(await rig.call('mcp__fixture__fail')).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: something went wrong' }],
      error: { message: 'something went wrong', code: 'MCP_TOOL_ERROR', name: 'McpError' },
    })
    const image = await rig.call('mcp__fixture__fail-image')
    expect(image.isError && image.error.code).toBe('MCP_TOOL_ERROR')
    expect(image.content[0]!.text).toMatch(/^Error: \[image: image\/png/)
  })

  it('structured content with an output schema ($schema tolerated) is validated', async () => {
    const rig = await sharedRig()
    const ok = await rig.call('mcp__fixture__structured', { answer: 42 })
    expect(ok.isError === false && ok.value).toEqual({ content: [{ type: 'text', text: '{"answer":42}' }], structuredContent: { answer: 42 } })
    const wrong = await rig.call('mcp__fixture__structured', { answer: 'forty-two' })
    expect(wrong.isError && wrong.error.code).toBe('INVALID_TOOL_OUTPUT')
    expect(wrong.isError && wrong.error.message).toContain('value.structuredContent/answer must be integer')
    const missing = await rig.call('mcp__fixture__structured-missing')
    expect(missing.isError && missing.error.message).toContain('structuredContent is missing')
  })

  it('structured content without an output schema, or with one AJV cannot compile, is accepted as is', async () => {
    const rig = await sharedRig()
    const free = await rig.call('mcp__fixture__structured-free')
    expect(free.isError === false && free.value).toEqual({ content: [{ type: 'text', text: 'free' }], structuredContent: ['kept', { nested: true }] })
    expect((await rig.call('mcp__fixture__structured-odd-schema')).isError).toBe(false)
    expect(rig.logged('output schema not enforced for structured-odd-schema')).toBe(true)
  })

  it('legacy toolResult and empty content', async () => {
    const rig = await sharedRig()
    expect(await rig.text('mcp__fixture__legacy')).toBe('{"key":"value"}')
    expect(await rig.text('mcp__fixture__empty')).toBe('(empty returned no model-visible content)')
  })

  it('a task-required tool is refused with MCP_TASK_REQUIRED and the server is never called', async () => {
    const rig = await sharedRig()
    expect(await rig.errorCode('mcp__fixture__task-only')).toBe('MCP_TASK_REQUIRED')
  })

  it('a huge result is cut at maxResultChars with a note; the value keeps it whole', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ maxResultChars: 1000 }))
    const result = await rig.call('mcp__fixture__big', { chars: 3_000_000 })
    if (result.isError) throw new Error(JSON.stringify(result))
    expect(result.content[0]!.text.length).toBeLessThanOrEqual(1000)
    expect(result.content[0]!.text.length).toBeGreaterThan(990)
    expect(result.content[0]!.text).toContain(' characters (0 of 1 lines) of the result shown; the rest, from line 1, is in the tool\'s value.]')
    expect((result.value as { content: { text: string }[] }).content[0]!.text).toHaveLength(3_000_000)
  })

  it('a call over toolCallTimeoutMs is TOOL_TIMEOUT, and the server keeps serving', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ toolCallTimeoutMs: 200 }))
    expect(await rig.errorCode('mcp__fixture__hang')).toBe('TOOL_TIMEOUT')
    expect(await rig.text('mcp__fixture__add', { a: 1, b: 1 })).toBe('2')
  })

  it('a caller abort is ABORTED, and the server keeps serving', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow())
    const controller = new AbortController()
    const pending = rig.call('mcp__fixture__hang', {}, controller.signal)
    setTimeout(() => controller.abort(), 50)
    const result = await pending
    expect(result.isError && result.error.code).toBe('ABORTED')
    expect(await rig.text('mcp__fixture__add', { a: 1, b: 2 })).toBe('3')
  })

  it('arguments are the model JSON as is; the server reports what is wrong with them', async () => {
    const rig = await sharedRig()
    expect(await rig.text('mcp__fixture__add', { a: 1 })).toBe('NaN')
    expect(await rig.errorCode('mcp__fixture__add', ['not', 'an', 'object'])).toBe('INVALID_ARGS')
  })

  it('a server line that is not JSON-RPC is skipped; the connection keeps working', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ env: { FIXTURE_GARBAGE: '1' } }))
    expect(await rig.text('mcp__fixture__add', { a: 2, b: 2 })).toBe('4')
  })
})

describe('the stdio child (M1)', () => {
  it('gets the scrubbed environment: secret-looking and DSH_ names are absent, explicit env is there', async () => {
    process.env.MCP_TEST_API_KEY = 'must-not-leak'
    process.env.DSH_MCP_TEST = 'must-not-leak'
    process.env.MCP_TEST_SAFE = 'visible'
    try {
      const rig = await startRig()
      await rig.add(fixtureRow({ env: { EXPLICIT_TOKEN: 'passed on purpose' } }))
      expect(await rig.text('mcp__fixture__env', { name: 'MCP_TEST_API_KEY' })).toBe('(unset)')
      expect(await rig.text('mcp__fixture__env', { name: 'DSH_MCP_TEST' })).toBe('(unset)')
      expect(await rig.text('mcp__fixture__env', { name: 'MCP_TEST_SAFE' })).toBe('visible')
      expect(await rig.text('mcp__fixture__env', { name: 'EXPLICIT_TOKEN' })).toBe('passed on purpose')
    } finally {
      delete process.env.MCP_TEST_API_KEY
      delete process.env.DSH_MCP_TEST
      delete process.env.MCP_TEST_SAFE
    }
  })

  it('envVars passes named parent variables as they are, even ones the scrub drops; unset ones stay unset', async () => {
    process.env.MCP_TEST_GITHUB_TOKEN = 'passed by name'
    try {
      const rig = await startRig()
      await rig.add(fixtureRow({ envVars: ['MCP_TEST_GITHUB_TOKEN', 'MCP_TEST_NOT_SET'] }))
      expect(await rig.text('mcp__fixture__env', { name: 'MCP_TEST_GITHUB_TOKEN' })).toBe('passed by name')
      expect(await rig.text('mcp__fixture__env', { name: 'MCP_TEST_NOT_SET' })).toBe('(unset)')
    } finally {
      delete process.env.MCP_TEST_GITHUB_TOKEN
    }
  })

  it('runs in the host workspace by default; a relative cwd of a row added by code resolves against it', async () => {
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-mcp-workspace-')))
    mkdirSync(join(workspace, 'sub'))
    try {
      const rig = await startRig()
      rig.app.set('dshHost', { lifetime: 'long-lived', workspace })
      await rig.add(fixtureRow())
      expect(await rig.text('mcp__fixture__cwd')).toBe(workspace)
      await rig.add(fixtureRow({ serverName: 'nested', cwd: 'sub' }))
      expect(await rig.text('mcp__nested__cwd')).toBe(join(workspace, 'sub'))
    } finally {
      rmSync(workspace, { recursive: true, force: true })
    }
  })

  it('arguments reach the child literally (no shell)', async () => {
    const rig = await startRig()
    await rig.add(fixtureRow({ args: [rig.fixturePath, 'stdio', 'has space', '$HOME'] }))
    expect(await rig.text('mcp__fixture__add', { a: 1, b: 1 })).toBe('2')
  })
})
