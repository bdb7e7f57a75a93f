import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { untracked } from 'dsh-core'
import { fsHost } from '../packages/skill/skill-fs/tests/helpers.ts'
import { ms, percentile, ratio, timed } from './stats.ts'

// One rebuild (a scan after an invalidation, one-shot ctx.fs: its system calls on the event loop)
// of a custom root of 10 skills (named to sort first) and BENCH_EMPTY_DIRS empty folders: with the
// default maxRootEntries (5,000), against the same host with the bound lifted (the whole walk, as
// before the bound) and against the 10 skills alone.
const EMPTY = Number(process.env.BENCH_EMPTY_DIRS ?? 20_000)
const ROUNDS = Number(process.env.BENCH_SKILL_ROUNDS ?? 5)

export async function benchSkillEmptyDirs(): Promise<string[]> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-empty-')))
  try {
    const full = join(base, 'full')
    const plain = join(base, 'plain')
    for (const root of [full, plain]) {
      for (let i = 0; i < 10; i++) {
        mkdirSync(join(root, `a-skill-${i}`), { recursive: true })
        writeFileSync(join(root, `a-skill-${i}`, 'SKILL.md'), `---\nname: a-skill-${i}\ndescription: Skill ${i}.\n---\nBody.\n`)
      }
    }
    for (let i = 0; i < EMPTY; i++) mkdirSync(join(full, `empty-${String(i).padStart(5, '0')}`))
    const cases = [
      ['bounded', full, {}],
      ['whole', full, { maxRootEntries: 1_000_000_000 }],
      ['alone', plain, {}],
    ] as const
    const times: Record<string, number[]> = { bounded: [], whole: [], alone: [] }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [key, root, extra] of cases) {
        const host = await fsHost({ watch: false, rescanMs: 0, includeDefaultRoots: false, customRoots: [root], ...extra }, { lifetime: 'one-shot' })
        try {
          const skills = untracked(host.app.skills)
          await skills.snapshot({ cwd: base })
          skills.fileChanged(join(root, 'a-skill-0', 'SKILL.md'))
          const [time, snapshot] = await timed(() => skills.snapshot({ cwd: base }))
          if (snapshot.skills.length !== 10) throw new Error(`found ${snapshot.skills.length}`)
          times[key]!.push(time)
        } finally {
          await host.stop()
        }
      }
    }
    const [bounded, whole, alone] = (['bounded', 'whole', 'alone'] as const).map((key) => percentile(times[key]!, 50))
    return [
      `a rebuild of a root of 10 skills and ${EMPTY} empty folders (${ROUNDS} rounds interleaved, one-shot ctx.fs):`,
      `  maxRootEntries 2,000 (default) p50 ${ms(bounded!)}; the whole walk (bound lifted) p50 ${ms(whole!)}; ratio ${ratio(bounded!, whole!)}; the 10 skills alone p50 ${ms(alone!)}`,
    ]
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
}
