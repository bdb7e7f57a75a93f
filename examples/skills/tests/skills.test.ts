import { cp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { trustIn } from '../../../test-support/trust.ts'
import { dsh, dshIn, json, killRunning, removeTempDirs, ROOT, tempDir } from '../../../packages/cli/cli/tests/helpers.ts'

// The example as its README runs it: a copy of examples/skills outside any git repository (so the
// project root is the project directory), and HOME pointed at the copy's fake home. The real home is
// never read. `dsh context` runs as the real `dsh` child process; the calls and the status run the
// same command in the worker (dshIn: the same boot, skill roots and output), which saves a start each.

interface Example {
  readonly project: string
  readonly home: string
}

async function copyExample(): Promise<Example> {
  const copy = await tempDir()
  await cp(join(ROOT, 'examples', 'skills'), copy, { recursive: true, filter: (source) => !source.endsWith(join('skills', 'tests')) })
  // The project's own skills load once it is trusted, as the README's `dsh trust` step does.
  await trustIn(join(copy, 'home', '.dsh'), join(copy, 'project'))
  return { project: join(copy, 'project'), home: join(copy, 'home') }
}

/** `dsh <args> --preset base --cwd <project>` with the fake home (and its .dsh as the dsh home), in the worker unless `process`. */
function run({ project, home }: Example, args: readonly string[], how: 'process' | 'worker' = 'worker') {
  return (how === 'process' ? dsh : dshIn)([...args, '--preset', 'base', '--cwd', project], { env: { HOME: home, DSH_HOME: join(home, '.dsh') } })
}

interface Message {
  readonly role: string
  readonly source: string
  readonly text: string
}

let example: Example

beforeAll(async () => {
  example = await copyExample()
})

afterEach(() => killRunning())

afterAll(async () => {
  await removeTempDirs()
})

describe('dsh context: the catalog and /name, in one session', () => {
  let messages: Message[]

  beforeAll(async () => {
    const result = await run(example, ['context', '--json', '--message', 'hello', '--message', '/deploy staging', '--message', '/release-notes for 2.3', '--message', 'compare a/b and /nope'], 'process')
    expect(result.code, result.stderr).toBe(0)
    messages = json<{ messages: Message[] }>(result).messages
  })

  it('enters what the model sees in order', () => {
    expect(messages.map((message) => `${message.role}:${message.source}`)).toEqual([
      'system:prompt',
      'user:user',
      'user:skill-catalog',
      'user:user',
      'user:skill-invocation',
      'user:user',
      'user:skill-invocation',
      'user:user',
    ])
  })

  it('the catalog lists both levels, the project description for the shadowed name, and not deploy', () => {
    const catalog = messages.find((message) => message.source === 'skill-catalog')!
    expect(catalog.text.split('\n').filter((line) => line.startsWith('- `'))).toEqual([
      // Project skills first, then user skills; by name within each.
      "- `release-notes`: Drafts this project's release notes from CHANGES.md in its house format. Use when the user asks for release notes or a changelog entry.",
      '- `commit-message`: Writes a commit message for the staged changes. Use when the user asks for a commit message.',
    ])
  })

  it('/deploy starts the skill the model may not load', () => {
    const [deploy] = messages.filter((message) => message.source === 'skill-invocation')
    expect(deploy!.text).toMatch(/^<skill_content name="deploy">\n/)
    expect(deploy!.text).toContain(`Base directory: ${join(example.project, '.agents', 'skills', 'deploy')}\n`)
    expect(deploy!.text).toContain('2. Run `scripts/deploy.sh <environment>` and report its last line.')
  })

  it('/release-notes enters the project skill; a slash that names no skill stays prose', () => {
    const invocations = messages.filter((message) => message.source === 'skill-invocation')
    expect(invocations).toHaveLength(2)
    expect(invocations[1]!.text).toContain('# Release notes (project)')
    expect(messages.at(-1)).toEqual({ role: 'user', source: 'user', text: 'compare a/b and /nope' })
  })
})

describe('dsh call skill', () => {
  it('loads the project release-notes, which shadows the user one', async () => {
    const result = await run(example, ['call', 'skill', '{"name":"release-notes"}', '--json'])
    expect(result.code, result.stderr).toBe(0)
    const { value } = json(result)
    expect(value.resourceBase).toEqual({ kind: 'directory', path: join(example.project, '.dsh', 'skills', 'release-notes') })
    expect(value.content).toMatch(/^# Release notes \(project\)\n/)
  })

  it('loads a user-level skill that nothing shadows', async () => {
    const result = await run(example, ['call', 'skill', '{"name":"commit-message"}', '--json'])
    expect(result.code, result.stderr).toBe(0)
    expect(json(result).value.resourceBase).toEqual({ kind: 'directory', path: join(example.home, '.claude', 'skills', 'commit-message') })
  })

  it('refuses deploy: it is disable-model-invocation', async () => {
    const result = await run(example, ['call', 'skill', '{"name":"deploy"}'])
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('Error: skill "deploy" is for the user to start (disable-model-invocation), not for the skill tool\n[SKILL_NOT_MODEL_INVOCABLE]\n')
  })

  it('with the project skill removed, the user release-notes comes through', async () => {
    const own = await copyExample()
    await rm(join(own.project, '.dsh', 'skills', 'release-notes'), { recursive: true })
    const result = await run(own, ['call', 'skill', '{"name":"release-notes"}', '--json'])
    expect(result.code, result.stderr).toBe(0)
    const { value } = json(result)
    expect(value.resourceBase).toEqual({ kind: 'directory', path: join(own.home, '.dsh', 'skills', 'release-notes') })
    expect(value.content).toMatch(/^# Release notes \(user\)\n/)
  })
})

describe('dsh status', () => {
  it('shows one row per skill root, all under the project and the fake home', async () => {
    const result = await run(example, ['status', '--json'])
    expect(result.code, result.stderr).toBe(0)
    const rows = json<{ capabilities: { surface: string; id: string; state: string; detail: string }[] }>(result).capabilities.filter((row) => row.surface === 'skill')
    const { project, home } = example
    expect(rows.map((row) => [row.id, row.state, row.detail])).toEqual([
      ['filesystem', 'ready', `3 skills in 6 roots (project ${project}); 1 shadowed; not watching (a one-shot command)`],
      ['project-agents', 'ready', `${join(project, '.agents', 'skills')}: 1 skill`],
      ['project-dsh', 'ready', `${join(project, '.dsh', 'skills')}: 1 skill`],
      ['user-claude', 'ready', `${join(home, '.claude', 'skills')}: 1 skill`],
      ['user-dsh', 'ready', `${join(home, '.dsh', 'skills')}: 0 skills; 1 shadowed: release-notes/SKILL.md (by ${join(project, '.dsh', 'skills', 'release-notes', 'SKILL.md')})`],
    ])
  })
})
