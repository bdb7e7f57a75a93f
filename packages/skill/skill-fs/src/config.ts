import { join, resolve } from 'node:path'
import { configParser, findHomeDirectory, givenDshHome } from 'dsh-core'
import { z } from 'zod'

const positive = (fallback: number) => z.number().int().positive().default(fallback)

export const SkillFsConfig = z.strictObject({
  /** The provider's name in the registry (unique per layer). */
  providerName: z.string().min(1).default('filesystem'),
  /** False drops the project and user roots; `customRoots` and `bundledRoot` stay. */
  includeDefaultRoots: z.boolean().default(true),
  /**
   * The user root (`~/.agents/skills`, `~/.claude/skills`). Default: `$HOME`, else the OS home
   * directory; with neither (or an empty or relative HOME) the roots under it are not read, and
   * `dsh status` says why.
   */
  userHome: z.string().min(1).optional(),
  /** The dsh home (`<dshHome>/skills`). Default: `$DSH_HOME` (`DSH_HOME_INVALID` when it is not absolute), else `<userHome>/.dsh`. */
  dshHome: z.string().min(1).optional(),
  /** More roots (rank 300), in order; relative paths are against the process directory. */
  customRoots: z.array(z.string().min(1)).default([]),
  /** Skills shipped with a deployment (rank 600). */
  bundledRoot: z.string().min(1).optional(),
  /** A SKILL.md larger than this is rejected with a diagnostic (bodies go to the model whole). */
  maxSkillFileBytes: positive(1_000_000),
  /** Frontmatter not closed within this many bytes is rejected. */
  maxFrontmatterBytes: positive(64 * 1024),
  /**
   * A root's folders and `.md` files looked at, in name order; the rest are not, and the root's
   * `dsh status` row and the log say how many. Each folder costs system calls at every rebuild, so a
   * root of tens of thousands of folders (a cache, a checkout) cannot stall the host.
   */
  maxRootEntries: positive(2000),
  /** With `ctx.fs`'s `io: async`, the files of one root read at once. */
  readConcurrency: positive(16),
  /** Parsed frontmatters remembered by path, size and mtime, so an unchanged file is not parsed again; the oldest goes first. */
  parsedCacheMaxEntries: positive(50_000),
  /** A root's `dsh status --json` row lists at most this many warnings, shadowed files and rejections (`items`), and counts the rest (`itemsOmitted`). */
  statusItemsMax: positive(1000),
  /** Watch the roots and refresh the catalog when skills are added, edited or removed. */
  watch: z.boolean().default(true),
  /**
   * A root that is not watched (`watch: false`, a one-shot command, a watcher that failed) is looked
   * at again on a read once the last look is older than this; 0 looks on every read. A failed
   * watcher is tried again no sooner than this after it failed.
   */
  rescanMs: z.number().int().min(0).default(2000),
  watchUsePolling: z.boolean().default(false),
  /** A file must stay unchanged this long before its change counts (chokidar awaitWriteFinish). */
  watchStabilityThresholdMs: positive(200),
  /** Polling interval (with `watchUsePolling`, and for awaitWriteFinish). */
  watchPollIntervalMs: positive(100),
  /** Projects whose roots are watched at once; the least recently read one is let go first. */
  watchMaxProjects: positive(128),
  watchFollowSymlinks: z.boolean().default(true),
})
export type SkillFsConfig = z.infer<typeof SkillFsConfig>

export const Config = configParser(SkillFsConfig)

/** The configured places, made absolute once at load. */
export interface Places {
  /** Undefined when there is no usable home: the user roots under it are not read (`homeless` says why). */
  readonly userHome: string | undefined
  /** Undefined when neither `dshHome`, `$DSH_HOME` nor a home gives one. */
  readonly dshHome: string | undefined
  /** Why there is no user home (`HOME is "", not an absolute path`), for `dsh status`. */
  readonly homeless: string | undefined
  readonly customRoots: readonly string[]
  readonly bundledRoot: string | undefined
}

export function placesOf(config: SkillFsConfig, env: NodeJS.ProcessEnv = process.env): Places {
  const user = config.userHome !== undefined ? { home: resolve(config.userHome) } : findHomeDirectory(env)
  const userHome = 'home' in user ? user.home : undefined
  return {
    userHome,
    dshHome: config.dshHome !== undefined ? resolve(config.dshHome) : (givenDshHome(env) ?? (userHome === undefined ? undefined : join(userHome, '.dsh'))),
    homeless: 'reason' in user ? user.reason : undefined,
    customRoots: config.customRoots.map((root) => resolve(root)),
    bundledRoot: config.bundledRoot === undefined ? undefined : resolve(config.bundledRoot),
  }
}
