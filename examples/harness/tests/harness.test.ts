import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { converse, startHarness, type Harness, type Model, type ModelRequest } from '../harness.ts'
import { scriptedModel } from '../scripted-model.ts'

let scratch: string
let project: string
let harness: Harness

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'dsh-harness-test-'))
  project = join(scratch, 'project')
  await mkdir(join(project, '.dsh', 'skills', 'release-notes'), { recursive: true })
  await mkdir(join(scratch, 'home'))
  await writeFile(
    join(project, '.dsh', 'skills', 'release-notes', 'SKILL.md'),
    '---\nname: release-notes\ndescription: How this project writes release notes.\n---\nOne line per change, newest first.\n',
  )
  // The harness's trust dialog: this test's project is trusted (its skills load), nothing else is.
  const trusted = await realpath(project)
  harness = await startHarness({ userHome: join(scratch, 'home'), trust: ({ directory }) => directory === trusted })
})

afterEach(async () => {
  await harness.stop()
  await rm(scratch, { recursive: true, force: true })
})

const kinds = (request: ModelRequest) => request.conversation.map((event) => `${event.type}:${(event.data as { source?: { kind: string } }).source?.kind ?? ''}`)

describe('the reference harness', () => {
  it('enters the message through the pre-step chain, shows the catalog and prompt, runs the tool call, and ends the session', async () => {
    const conversation = await converse(harness.app, { cwd: project, text: 'Write the release notes.', model: scriptedModel })

    const [first, second] = conversation.requests
    expect(first!.tools.map((tool) => tool.name)).toEqual(['skill', 'web_fetch', 'web_search'])
    expect(first!.tools.find((tool) => tool.name === 'skill')!.parameters).toMatchObject({ type: 'object', properties: { name: { type: 'string' } } })
    expect(first!.system).toBe(harness.app.tools.sections().map((section) => section.text).join('\n\n'))
    expect(first!.system).toContain('web_fetch')
    // The user's message, then the skill catalog the pre-step chain added.
    expect(kinds(first!)).toEqual(['user/message:user', 'user/message:skill-catalog'])
    expect(conversation.calls).toHaveLength(1)
    expect(conversation.calls[0]).toMatchObject({ name: 'skill', arguments: { name: 'release-notes' }, result: { isError: false } })
    expect(kinds(second!)).toEqual(['user/message:user', 'user/message:skill-catalog', 'assistant/tool-call:', 'tool/result:'])
    expect(conversation.answer).toContain('One line per change, newest first.')
    expect(harness.app.sessions.size).toBe(0)
  })

  it('gives a failed tool call back to the model as an error result with its code', async () => {
    const calls: ModelRequest[] = []
    const model: Model = async (request) => {
      calls.push(request)
      if (calls.length === 1) return { kind: 'call', name: 'no_such_tool', arguments: {} }
      return { kind: 'answer', text: 'gave up' }
    }
    const conversation = await converse(harness.app, { cwd: project, text: 'hi', model })
    expect(conversation.calls[0]!.result).toMatchObject({ isError: true, error: { code: 'UNKNOWN_TOOL' } })
    expect(calls[1]!.conversation.at(-1)).toMatchObject({ type: 'tool/result', data: { name: 'no_such_tool', isError: true } })
    expect(conversation.answer).toBe('gave up')
  })

  it('sends nothing when a pre-step link rejects the message, and still ends the session', async () => {
    const dispose = harness.app.sessions.use(async ({ messages }, next) => (messages.some((m) => m.content.some((b) => b.text.includes('secret'))) ? { kind: 'reject', reason: 'contains a secret' } : next()))
    let asked = false
    const conversation = await converse(harness.app, { cwd: project, text: 'my secret is 42', model: async () => ((asked = true), { kind: 'answer', text: '' }) })
    dispose()
    expect(conversation).toMatchObject({ answer: '(not sent: contains a secret)', requests: [], calls: [] })
    expect(asked).toBe(false)
    expect(harness.app.sessions.size).toBe(0)
  })

  it('stops: every plugin is unloaded', async () => {
    await harness.stop()
    expect(harness.app.get('tools')).toBeUndefined()
    expect(harness.app.get('sessions')).toBeUndefined()
  })
})
