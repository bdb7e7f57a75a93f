import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Context, type ForkScope, type Plugin } from 'cordis'
import { vi } from 'vitest'
import { settleTeardowns, type HostLifetime } from 'dsh-core'
import FileSystem from 'dsh-core/fs'
import ReadinessService from 'dsh-core/readiness'
import SessionService from 'dsh-core/sessions'
import ToolRuntime from 'dsh-core/tools'
import TrustService from 'dsh-core/trust'
import { TRUST_EVERYTHING, trustIn } from '../../../../test-support/trust.ts'
import SkillRegistry from 'dsh-skill'
import * as toolSkill from 'dsh-skill/tool'
import * as skillFs from '../src/index.ts'

const made: string[] = []

/** A fresh canonical temp directory, removed by `removeTempDirs()`. */
export async function tempDir(prefix = 'dsh-skill-fs-'): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)))
  made.push(dir)
  return dir
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
}

/** Writes a file (parents created). */
export async function put(path: string, content: string | Buffer): Promise<string> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, content)
  return path
}

/** A SKILL.md text with the given frontmatter lines and body. */
export function skillMd(frontmatter: Record<string, string | boolean>, body = 'Body.'): string {
  const lines = Object.entries(frontmatter).map(([key, value]) => `${key}: ${String(value)}`)
  return `---\n${lines.join('\n')}\n---\n${body}\n`
}

/** Writes `<root>/<name>/SKILL.md` with a valid frontmatter (description overridable). */
export function bundle(root: string, name: string, description = `${name} from ${root}`, extra: Record<string, string | boolean> = {}, body = `Body of ${name}.`): Promise<string> {
  return put(join(root, name, 'SKILL.md'), skillMd({ name, description, ...extra }, body))
}

/** A workspace layout: a git project (with a subdirectory), a user home and a dsh home, all temporary. */
export async function layout(): Promise<{ base: string; project: string; sub: string; home: string; dshHome: string }> {
  const base = await tempDir()
  const project = join(base, 'project')
  const sub = join(project, 'packages', 'app')
  await mkdir(join(project, '.git'), { recursive: true })
  await mkdir(sub, { recursive: true })
  const home = join(base, 'home')
  const dshHome = join(home, '.dsh')
  await mkdir(home, { recursive: true })
  // The project's own skills load only in a trusted workspace; `dsh` children read this home's trusted.json.
  await trustIn(dshHome, project)
  return { base, project, sub, home, dshHome }
}

export interface FsHost {
  readonly app: Context
  readonly fork: ForkScope
  stop(): Promise<void>
}

/** A real host: fs, sessions, tools, readiness, the registry, skill-fs and (optionally) the tool. */
export async function fsHost(
  config: Record<string, unknown>,
  options: { tool?: boolean; toolConfig?: unknown; lifetime?: HostLifetime; fsIo?: 'sync' | 'async'; /** Decide trust from this trusted.json alone (default: every workspace is trusted). */ trustFile?: string } = {},
): Promise<FsHost> {
  const app = new Context()
  app.set('dshHost', { lifetime: options.lifetime ?? 'long-lived', ...(options.trustFile ? {} : { askTrust: TRUST_EVERYTHING }) })
  const plugin = app.plugin as (plugin: Plugin, config: unknown) => ForkScope
  plugin(TrustService as unknown as Plugin, options.trustFile ? { file: options.trustFile } : {})
  plugin(ToolRuntime as unknown as Plugin, {})
  plugin(FileSystem as unknown as Plugin, options.fsIo ? { io: options.fsIo } : undefined)
  plugin(SessionService as unknown as Plugin, undefined)
  plugin(ReadinessService as unknown as Plugin, {})
  plugin(SkillRegistry as unknown as Plugin, {})
  const fork = plugin(skillFs as unknown as Plugin, config)
  if (options.tool) plugin(toolSkill as unknown as Plugin, options.toolConfig ?? {})
  await app.start()
  await app.events.flush()
  return {
    app,
    fork,
    async stop() {
      await app.stop()
      await settleTeardowns(app)
    },
  }
}

/** Watcher timings short enough for tests (chokidar's write settling and polling). */
export const FAST_WATCH = { watchStabilityThresholdMs: 50, watchPollIntervalMs: 20 }

/** Waits (bounded, as a failure guard only: generous, as a loaded machine can hold a watcher back for seconds) until `check` passes: a watcher's effect has no fixed delay. */
export const until = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 60_000, interval: 50 })

/** The inotify watches this process holds now (every inotify descriptor's `inotify wd:` lines): what the kernel counts, whoever opened them. */
export function inotifyWatches(): number {
  let total = 0
  for (const fd of readdirSync('/proc/self/fd')) {
    let target
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`)
    } catch {
      continue
    }
    if (target !== 'anon_inode:inotify') continue
    total += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').filter((line) => line.startsWith('inotify wd:')).length
  }
  return total
}
