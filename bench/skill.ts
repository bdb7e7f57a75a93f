import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { trustIn } from '../test-support/trust.ts'
import { characterCount, createUserMessage, untracked } from 'dsh-core'
import matter from 'gray-matter'
import { fsHost, type FsHost } from '../packages/skill/skill-fs/tests/helpers.ts'
import { consumerHost } from '../packages/skill/skill/tests/consumer.ts'
import { candidate, mount, scripted } from '../packages/skill/skill/tests/helpers.ts'
import { realLengthNames } from '../packages/skill/skill/tests/real-names.ts'
import { ToolSkillConfig } from '../packages/skill/skill/src/tool/config.ts'
import { catalogDescription } from 'dsh-skill'
import { ms, percentile, ratio, timed } from './stats.ts'

// Cold discovery of 2,000 skills spread over the roots (ours: dsh-skill-fs through ctx.skills,
// frontmatter-only reads) against a bare loop that reads every SKILL.md whole and parses it with
// gray-matter; a warm (cached) observation against a cold one; and the catalog pre-step.

const SKILLS = Number(process.env.BENCH_SKILLS ?? 2000)
const ROUNDS = Number(process.env.BENCH_SKILL_ROUNDS ?? 10)
const BODY = `${'Follow these steps carefully. Read the referenced files only when needed.\n'.repeat(80)}`

function layout(): { base: string; project: string; home: string; custom: string; roots: string[] } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-skill-')))
  const project = join(base, 'project')
  const home = join(base, 'home')
  const custom = join(base, 'custom')
  mkdirSync(join(project, '.git'), { recursive: true })
  const roots = [
    join(project, '.dsh', 'skills'),
    join(project, '.agents', 'skills'),
    join(project, '.claude', 'skills'),
    custom,
    join(home, '.dsh', 'skills'),
    join(home, '.agents', 'skills'),
    join(home, '.claude', 'skills'),
  ]
  for (let i = 0; i < SKILLS; i++) {
    const name = `skill-${String(i).padStart(4, '0')}`
    const dir = join(roots[i % roots.length]!, name)
    mkdirSync(dir, { recursive: true })
    const description = `Use when working on task family ${i}: builds, checks and reports the ${i % 7} kind of artefact.`
    writeFileSync(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\nmetadata:\n  owner: team-${i % 5}\n---\n${BODY}`)
  }
  return { base, project, home, custom, roots }
}

/** The baseline: list each root, read each SKILL.md whole, parse it with gray-matter. */
async function bare(roots: readonly string[]): Promise<number> {
  let found = 0
  for (const root of roots) {
    for (const entry of readdirSync(root, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      const text = await readFile(join(root, entry.name, 'SKILL.md'), 'utf8')
      // An options object turns off gray-matter's cache, which would otherwise answer repeats from memory.
      const file = matter(text, {})
      if (typeof file.data.name === 'string' && typeof file.data.description === 'string') found++
    }
  }
  return found
}

/**
 * The skill-fs tests' real host (registry, skill-fs, the tool and what they inject), unwatched and
 * one-shot like the `dsh` process start a cold discovery stands for (so `ctx.fs` makes its system
 * calls on the event loop, its one-shot default).
 */
function boot(place: ReturnType<typeof layout>): Promise<FsHost> {
  return fsHost({ watch: false, rescanMs: 3_600_000, userHome: place.home, customRoots: [place.custom] }, { tool: true, lifetime: 'one-shot' })
}

export async function benchSkill(): Promise<string[]> {
  const place = layout()
  const view = { cwd: place.project }
  const anySkill = join(place.roots[0]!, 'skill-0000', 'SKILL.md')
  const lines: string[] = []
  const check = (found: number, complete = true) => {
    if (found !== SKILLS || !complete) throw new Error(`found ${found} skills (complete: ${complete})`)
  }
  try {
    const cold: number[] = []
    const again: number[] = []
    const baseline: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh host per round: nothing seen before, like a process start.
      const host = await boot(place)
      const skills = untracked(host.app.skills)
      try {
        const [first, snapshot] = await timed(() => skills.snapshot(view))
        check(snapshot.skills.length, snapshot.complete)
        cold.push(first)
        // An invalidation (a watcher event, a writer): everything is looked at again; unchanged files are not re-parsed.
        skills.fileChanged(anySkill)
        const [second, resnapshot] = await timed(() => skills.snapshot(view))
        check(resnapshot.skills.length, resnapshot.complete)
        again.push(second)
      } finally {
        await host.stop()
      }
      const [theirs, found] = await timed(() => bare(place.roots))
      check(found)
      baseline.push(theirs)
    }
    const coldP50 = percentile(cold, 50)
    const bareP50 = percentile(baseline, 50)
    lines.push(`discovery of ${SKILLS} skills in ${place.roots.length} roots, ${ROUNDS} rounds interleaved (bodies ${BODY.length} bytes)`)
    lines.push(`  cold (fresh host): ours p50 ${ms(coldP50)}, bare read-whole + gray-matter p50 ${ms(bareP50)}, ratio ${ratio(coldP50, bareP50)} (goal ≤ 0.50x)`)
    lines.push(`  after an invalidation (files unchanged): ours p50 ${ms(percentile(again, 50))}, ratio to bare ${ratio(percentile(again, 50), bareP50)}`)

    const host = await boot(place)
    try {
      const skills = untracked(host.app.skills)
      const sessions = untracked(host.app.sessions)
      await skills.snapshot(view)
      const warm: number[] = []
      for (let i = 0; i < 2000; i++) warm.push((await timed(() => skills.snapshot(view)))[0])
      const warmP50 = percentile(warm, 50)
      lines.push(`warm observation (cached): p50 ${(warmP50 * 1000).toFixed(1)} µs, p95 ${(percentile(warm, 95) * 1000).toFixed(1)} µs; cold ÷ warm ${(coldP50 / warmP50).toFixed(0)}x (goal ≥ 100x)`)

      // The catalog pre-step on a fresh session (discovery cached): filter, budget, digest, history scan, message.
      const step: number[] = []
      const render: number[] = []
      const list = await skills.list(view)
      for (let i = 0; i < 200; i++) {
        const session = sessions.create({ cwd: place.project })
        step.push((await timed(() => sessions.runPreStep(session, [createUserMessage('hi', { kind: 'user' })])))[0])
        const [bareRender] = await timed(async () =>
          createHash('sha256')
            .update(list.map((skill) => `- \`${skill.name}\`: ${skill.description}`).join('\n'))
            .digest('hex'),
        )
        render.push(bareRender)
      }
      lines.push(`catalog pre-step, ${SKILLS} skills into the 8000-character budget (fresh session): p50 ${ms(percentile(step, 50))}, p95 ${ms(percentile(step, 95))}; bare join of all lines + sha256 p50 ${ms(percentile(render, 50))}`)
    } finally {
      await host.stop()
    }
  } finally {
    rmSync(place.base, { recursive: true, force: true })
  }
  for (const count of CATALOG_SIZES) lines.push(...(await catalogAt(count)))
  lines.push(...(await servedAtDepth()))
  return lines
}

// The first `prompts/list` of `dsh serve` in a workspace many directories below its project root
// (issue 33 item 4: every directory on the way has three skill roots, none of which exists). Ours:
// watching (the default); the baseline: the same server with watching off, same run. The project
// root's one skill is what both list.

const DEPTHS = (process.env.BENCH_SKILL_DEPTHS ?? '10,100,1000').split(',').map(Number)
const DSH = fileURLToPath(new URL('../packages/cli/cli/bin/dsh.mjs', import.meta.url))

async function firstPromptsList(cwd: string, home: string, config: string | undefined): Promise<number> {
  const args = [DSH, 'serve', '--preset', 'base', '--cwd', cwd, ...(config ? ['--config', config] : [])]
  const transport = new StdioClientTransport({ command: process.execPath, args, env: { ...process.env, HOME: home, DSH_HOME: join(home, '.dsh') } as Record<string, string>, stderr: 'ignore' })
  const client = new Client({ name: 'bench-skill-depth', version: '0' })
  await client.connect(transport)
  try {
    const [took, listed] = await timed(() => client.listPrompts(undefined, { timeout: 600_000 }))
    if (!listed.prompts.some((prompt) => prompt.name === 'at-the-root')) throw new Error(`depth: the root skill is not listed (${JSON.stringify(listed.prompts)})`)
    return took
  } finally {
    await client.close()
  }
}

async function servedAtDepth(): Promise<string[]> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-skill-depth-')))
  const lines: string[] = []
  try {
    const project = join(base, 'project')
    const home = join(base, 'home')
    mkdirSync(join(project, '.git'), { recursive: true })
    mkdirSync(join(project, '.dsh', 'skills', 'at-the-root'), { recursive: true })
    writeFileSync(join(project, '.dsh', 'skills', 'at-the-root', 'SKILL.md'), '---\nname: at-the-root\ndescription: The project root skill.\n---\nBody.\n')
    await trustIn(join(home, '.dsh'), project)
    const unwatched = join(base, 'unwatched.yml')
    writeFileSync(unwatched, '- id: skill-fs\n  name: dsh-skill-fs\n  config:\n    watch: false\n')
    for (const depth of DEPTHS) {
      let cwd = project
      for (let level = 0; level < depth; level++) cwd = join(cwd, 'd')
      mkdirSync(cwd, { recursive: true })
      const watched = await firstPromptsList(cwd, home, undefined)
      const bare = await firstPromptsList(cwd, home, unwatched)
      lines.push(`dsh serve, first prompts/list ${depth} directories below the project root (${3 * (depth + 1)} project skill roots): watching ${ms(watched)}, watch: false ${ms(bare)}, ratio ${ratio(watched, bare)}`)
    }
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
  return lines
}

// The catalog with many skills (issue 18 item 13): how many names the model can see, ours against the
// catalog before it listed names only (descriptions cut to one length, at least 40 characters, then
// skills dropped from the end of the name order), both with the default 8,000-character budget.
// Names are as long as real ones (issue 33 item 3: tests/real-names.ts, 18.8 characters on
// average); with 10-character names the figure overstated what fits.

const CATALOG_SIZES = (process.env.BENCH_CATALOG_SIZES ?? '300,2000,5000').split(',').map(Number)
/** The catalog before this change: a common description length down to 40, then entries dropped from the end by name. */
function namesVisibleBefore(skills: readonly { name: string; description: string }[], budget = 8000, floor = 40): number {
  const sorted = [...skills].sort((a, b) => (a.name < b.name ? -1 : 1))
  const entries = sorted.map((skill) => catalogDescription(skill.description, 500))
  const line = (name: string, description: string) => characterCount(`- \`${name}\`: ${description}`) + 1
  const size = (cap: number) => sorted.reduce((sum, skill, i) => sum + line(skill.name, catalogDescription(entries[i]!, cap)), 0)
  if (size(floor) <= budget) return skills.length
  let total = 0
  let kept = 0
  for (const [i, skill] of sorted.entries()) {
    total += line(skill.name, catalogDescription(entries[i]!, floor))
    if (total > budget) break
    kept++
  }
  return kept
}

async function catalogAt(count: number): Promise<string[]> {
  const names = realLengthNames(count)
  const meanLength = names.reduce((sum, name) => sum + name.length, 0) / names.length
  const defaults = ToolSkillConfig.parse({})
  const skills = names.map((name, i) =>
    candidate(name, {
      provider: 'filesystem',
      source: i % 2 ? 'user-agents' : 'project-dsh',
      description: `Use when the task involves ${name.replace(/-/g, ' ')}: gathers what it needs from the workspace, follows the team's conventions and reports what it changed and why.`,
    }),
  )
  const host = await consumerHost({})
  try {
    mount(host.app, scripted('filesystem', skills))
    const sessions = untracked(host.app.sessions)
    const step: number[] = []
    let visible = 0
    let described = 0
    for (let i = 0; i < 50; i++) {
      const session = sessions.create({ cwd: '/workspace' })
      const [took, decision] = await timed(() => sessions.runPreStep(session, [createUserMessage('hi', { kind: 'user' })]))
      step.push(took)
      const catalog = decision.kind === 'enter' ? decision.messages.find((message) => message.source.kind === 'skill-catalog') : undefined
      described = (catalog?.source.entries as unknown[]).length
      visible = described + ((catalog?.source.names as unknown[] | undefined)?.length ?? 0)
    }
    const before = namesVisibleBefore(skills)
    return [
      `catalog of ${count} skills, names of ${meanLength.toFixed(1)} characters on average (${defaults.catalogBudgetChars.toLocaleString('en-US')}-character budget, names-only budget ${defaults.catalogNamesBudgetChars.toLocaleString('en-US')}): names visible ${visible} of ${count} (${described} with a description); before this change ${before}; ratio ${ratio(visible, before)}`,
      `  pre-step on a fresh session: first after a change ${ms(step[0]!)} (fits the catalog), then p50 ${ms(percentile(step.slice(1), 50))} (the fitted catalog is reused)`,
    ]
  } finally {
    await host.stop()
  }
}
