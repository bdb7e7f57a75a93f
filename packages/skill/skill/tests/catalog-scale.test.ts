import type { UserMessage } from 'dsh-core'
import { afterEach, describe, expect, it } from 'vitest'
import { consumerHost, kinds, textOf, type ConsumerHost } from './consumer.ts'
import { candidate, mount, scripted, type ScriptedProvider } from './helpers.ts'

// The catalog with hundreds or thousands of skills: every name stays visible as long as any room
// is left (descriptions shortened first, then names only), and only past that are skills left out,
// with the count and how to list them.

let host: ConsumerHost
let provider: ScriptedProvider

afterEach(async () => {
  await host.stop()
})

async function start(config: unknown, skills: ReturnType<typeof candidate>[]) {
  host = await consumerHost(config)
  provider = scripted('filesystem', skills.map((skill) => ({ ...skill, provider: 'filesystem' })))
  mount(host.app, provider)
}

/** `count` skills of one origin, named `<prefix>-0000`…, each with a description of about 90 characters. */
function many(prefix: string, source: string, count: number) {
  return Array.from({ length: count }, (_, index) => {
    const name = `${prefix}-${String(index).padStart(4, '0')}`
    return candidate(name, { source, description: `Use when the task is about ${name}: builds it, checks it and reports what it found.` })
  })
}

const catalogOf = (messages: readonly UserMessage[]) => messages.find((message) => message.source.kind === 'skill-catalog')
/** Every name the catalog shows, described or by name only. */
function visibleNames(catalog: UserMessage): string[] {
  const described = (catalog.source.entries as { name: string }[]).map((entry) => entry.name)
  return [...described, ...((catalog.source.names as string[] | undefined) ?? [])]
}

describe('a catalog of many skills', () => {
  it('2,000 skills: every name is visible, some with descriptions, the rest by name only', async () => {
    await start({}, [...many('proj', 'project-dsh', 1000), ...many('user', 'user-agents', 1000)])
    const catalog = catalogOf(await host.step())!
    const names = visibleNames(catalog)
    expect(new Set(names).size).toBe(2000)
    expect(catalog.source.omitted ?? 0).toBe(0)
    const described = catalog.source.entries as { name: string; description: string }[]
    expect(described.length).toBeGreaterThan(50)
    // Project skills come first: every described one is a project skill.
    expect(described.every((entry) => entry.name.startsWith('proj-'))).toBe(true)
    const text = textOf(catalog)
    for (const name of names) expect(text).toMatch(new RegExp(`(^|[\\s,\`])${name}([\\s,\`]|$)`))
    expect(text).toMatch(new RegExp(`${(2000 - described.length).toLocaleString('en-US')} skills are listed by name only`))
    expect(text).not.toMatch(/not listed/)
  })

  it('5,000 skills: names fill the name budget, project skills first; the rest are counted and the tool lists them', async () => {
    await start({}, [...many('proj', 'project-dsh', 2500), ...many('user', 'user-agents', 2500)])
    const catalog = catalogOf(await host.step())!
    const names = visibleNames(catalog)
    const omitted = catalog.source.omitted as number
    expect(names.length + omitted).toBe(5000)
    expect(omitted).toBeGreaterThan(0)
    expect(names.filter((name) => name.startsWith('proj-'))).toHaveLength(2500)
    // What is left out is the end of the order: the last user skills by name.
    const shown = new Set(names)
    expect(shown.has('user-2499')).toBe(false)
    expect(shown.has('user-0000')).toBe(true)
    const text = textOf(catalog)
    expect(text).toContain(`${omitted.toLocaleString('en-US')} more skills are not listed`)
    expect(text).toMatch(/`skill` tool with the name "\?"/)
    const listing = await host.call('?')
    expect(listing.isError).toBe(false)
    for (const name of ['user-2499', 'proj-0000']) expect(listing.content[0]!.text).toContain(name)
  })

  it('project skills before user skills, then the ones this session used, then by name', async () => {
    const projects = many('proj', 'project-dsh', 10)
    const users = many('user', 'user-agents', 10)
    // Room for about a dozen described lines at the shortest description.
    await start({ catalogBudgetChars: 12 * 40, catalogMinDescriptionLength: 20 }, [...users, ...projects])
    const first = catalogOf(await host.step())!
    const described = (first.source.entries as { name: string }[]).map((entry) => entry.name)
    expect(described.slice(0, 10)).toEqual(projects.map((skill) => skill.name))
    expect(described).not.toContain('user-0007')
    expect(visibleNames(first)).toContain('user-0007')
    expect((await host.call('user-0007')).isError).toBe(false)
    const after = catalogOf(await host.step())!
    expect(after.source.update).toBe(true)
    expect((after.source.entries as { name: string }[]).map((entry) => entry.name)).toContain('user-0007')
  })

  it('under the budget, loading a skill changes nothing: no catalog is published again', async () => {
    await start({}, many('proj', 'project-dsh', 5))
    expect(kinds(await host.step())).toEqual(['user', 'skill-catalog'])
    expect((await host.call('proj-0003')).isError).toBe(false)
    expect(kinds(await host.step())).toEqual(['user'])
  })
})

describe('listing skills through the tool', () => {
  it('"?" over thousands of skills lists names up to listingMaxChars in priority order and says how to find the rest', async () => {
    await start({ listingMaxChars: 1000 }, [...many('user', 'user-agents', 200), ...many('proj', 'project-dsh', 200)])
    const result = await host.call('?')
    expect(result.isError).toBe(false)
    if (result.isError) return
    const text = result.content[0]!.text
    // "proj-0000, " is 11 characters: 90 names fit in 1000; project skills come first.
    expect(text.split('\n')[0]).toBe('400 skills are available (the first 90, to fit listingMaxChars; call it with "?" followed by words to search the rest); load one with the `skill` tool by its exact name:')
    expect(text).toContain('proj-0089')
    expect(text).not.toContain('proj-0090')
    expect(text.length).toBeLessThan(1200)
    const search = await host.call('?user-0199')
    expect(search.content[0]!.text).toContain('`user-0199`')
  })

  it('"?" or an empty name lists every model-invocable skill; "?words" searches names and descriptions', async () => {
    await start({}, [
      candidate('pdf-tools', { source: 'project-dsh', description: 'Fill and merge PDF forms.' }),
      candidate('release-notes', { source: 'user-agents', description: 'Draft release notes from merged pull requests.' }),
      candidate('hidden', { source: 'project-dsh', invocation: { modelInvocable: false, userInvocable: true } }),
    ])
    for (const query of ['?', '']) {
      const result = await host.call(query)
      expect(result.isError, query).toBe(false)
      const text = result.content[0]!.text
      expect(text).toContain('pdf-tools')
      expect(text).toContain('release-notes')
      expect(text).not.toContain('hidden')
    }
    const search = await host.call('?PDF forms')
    expect(search.isError).toBe(false)
    expect(search.content[0]!.text).toContain('- `pdf-tools`: Fill and merge PDF forms.')
    expect(search.content[0]!.text).not.toContain('release-notes')
    const none = await host.call('?nothing-like-this')
    expect(none.content[0]!.text).toMatch(/no skill matches/i)
  })
})

describe('a catalog of real-length names (issue 33 item 3)', () => {
  it('2,000 skills with names as long as real collections\' (18.8 characters on average): every name is visible with the default budgets', async () => {
    const { realLengthNames } = await import('./real-names.ts')
    const names = realLengthNames(2000)
    expect(names.reduce((sum, name) => sum + name.length, 0) / names.length).toBeGreaterThan(18)
    await start(
      {},
      names.map((name, index) => candidate(name, { source: index % 2 ? 'user-agents' : 'project-dsh', description: `Use when the task involves ${name}: gathers what it needs, follows the conventions and reports what changed.` })),
    )
    const catalog = catalogOf(await host.step())!
    expect(new Set(visibleNames(catalog)).size).toBe(2000)
    expect(catalog.source.omitted ?? 0).toBe(0)
    expect(textOf(catalog)).not.toMatch(/not listed/)
  })
})
