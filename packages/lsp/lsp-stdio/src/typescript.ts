import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { assertNever, untrustedReason, type CapabilityRow, type TrustDecider, type TrustDecision, type Workspace } from 'dsh-core'
import { LspError } from 'dsh-lsp'
import type { ServerConfig } from './config.ts'
import type { Launch, Launcher } from './launch.ts'
import { revokedCheck } from './trust-change.ts'

/** One installed `typescript` package. */
interface TypescriptPackage {
  readonly dir: string
  readonly version: string
  /** TypeScript 7 and later ship their own language server and no tsserver. */
  readonly native: boolean
  readonly where: string
}

/** A workspace's own typescript that was not run because its workspace is not trusted. */
interface Refusal {
  readonly found: TypescriptPackage
  readonly decision: TrustDecision
}

/** typescript-language-server's executable, or why it is missing. */
export type TsserverBridge = { readonly executable: string } | { readonly missing: string }

const INSTALL_NATIVE = 'npm install --save-dev typescript (7 or later runs its own language server)'
const INSTALL_TSSERVER = 'npm install --save-dev typescript@5 typescript-language-server'

/**
 * The TypeScript server of a workspace. TypeScript 7 replaced tsserver with a language server of its
 * own (`tsc --lsp --stdio`); TypeScript 5 is served through typescript-language-server. Which one
 * runs follows the `typescript` package the project compiles with, as an editor would: the
 * workspace's own `node_modules/typescript` first, else the one installed beside dsh. The choice
 * (`auto`, or `native`/`tsserver` to insist) is made when a workspace's server starts.
 */
export class TypescriptLauncher implements Launcher {
  private readonly installed: TypescriptPackage | undefined
  /** Per server root: the workspace typescript found there and not run (an untrusted workspace). */
  private readonly refused = new Map<string, Refusal>()

  constructor(
    private readonly choice: NonNullable<ServerConfig['typescript']>,
    private readonly config: ServerConfig,
    private readonly bridge: TsserverBridge,
    /** Whether a workspace's own typescript may run (`ctx.trust`). */
    private readonly trust: TrustDecider,
    /** The `typescript` package directory beside dsh; null for none. */
    installation: string | null = installedTypescript(),
  ) {
    this.installed = installation ? packageAt(installation, 'beside dsh') : undefined
  }

  describe(): string {
    const installed = this.installed
    const found = installed ? `typescript ${installed.version} beside dsh` : 'no typescript beside dsh'
    return `TypeScript server (${this.choice}): the workspace's own typescript, else ${found}`
  }

  async launch(workspace: Workspace, signal: AbortSignal): Promise<Launch> {
    const allowed = await this.workspaceTypescript(workspace, signal)
    const own = allowed?.found
    const candidates = [own, this.installed].filter((found) => found !== undefined)
    const chosen = this.pick(candidates)
    if (!chosen) throw this.unavailable(candidates, this.refused.get(workspace.path))
    // The workspace's own typescript runs only once it is trusted. Type acquisition alone asks nobody:
    // without it either server still works, and a question in every TypeScript workspace teaches users to say yes.
    let revoked = chosen === own ? allowed?.revoked : undefined
    let trusted = chosen === own && own !== this.installed
    if (!trusted) {
      const options = { brings: `${chosen.native ? "TypeScript 7's" : "tsserver's"} automatic type acquisition (npm install @types/… for its package.json's dependencies)`, ask: false, subtree: true }
      const decision = await this.trust.decide(workspace.path, { ...options, signal })
      trusted = decision.trusted
      if (trusted) revoked = revokedCheck(this.trust, workspace.path, options, decision)
    }
    const launch = chosen.native ? this.native(chosen, trusted) : this.tsserver(chosen, trusted)
    return revoked ? { ...launch, revoked } : launch
  }

  /**
   * The `dsh status` rows of workspace typescripts found and not run (state `untrusted`), one per
   * server root that had one.
   */
  untrustedRows(id: string): CapabilityRow[] {
    return [...this.refused.entries()].map(([root, { found, decision }]) => ({
      id: `${id}:workspace-typescript`,
      state: 'untrusted',
      detail: `typescript ${found.version} ${found.where} (${found.dir}) was not run: ${untrustedReason(decision)}; ${this.installed ? `typescript ${this.installed.version} beside dsh serves ${root} instead` : 'nothing else can serve it'}; to use it: ${decision.command}`,
    }))
  }

  /**
   * The workspace's own \`node_modules/typescript\`, when it may run: it is the installation's own
   * (the same directory once symlinks are resolved: dsh run inside its own checkout) or the
   * workspace is trusted. Otherwise it is remembered as refused and left out.
   */
  private async workspaceTypescript(workspace: Workspace, signal: AbortSignal): Promise<{ readonly found: TypescriptPackage; readonly revoked?: Launch['revoked'] } | undefined> {
    const found = packageAt(join(workspace.path, 'node_modules', 'typescript'), `in ${workspace.path}`)
    if (!found) return undefined
    if (this.installed && sameDirectory(found.dir, this.installed.dir)) return { found: this.installed }
    // tsserver loads the plugins a tsconfig names (an `extends` above included) from its own
    // node_modules and every node_modules above it (Node's resolution): those directories run too.
    // TypeScript 7 loads no plugins.
    const readsAbove = found.native ? [] : ['node_modules']
    const options = { brings: `its own typescript ${found.version} (${found.dir})`, subtree: true, readsAbove }
    const decision = await this.trust.decide(workspace.path, { ...options, signal })
    if (decision.trusted) {
      this.refused.delete(workspace.path)
      return { found, revoked: revokedCheck(this.trust, workspace.path, options, decision) }
    }
    this.refused.set(workspace.path, { found, decision })
    return undefined
  }

  private pick(candidates: readonly TypescriptPackage[]): TypescriptPackage | undefined {
    switch (this.choice) {
      case 'auto':
        return candidates[0]
      case 'native':
        return candidates.find((found) => found.native)
      case 'tsserver':
        return candidates.find((found) => !found.native)
      default:
        return assertNever(this.choice, 'typescript server choice')
    }
  }

  /**
   * TypeScript 7's own server. Untrusted, without automatic type acquisition: like tsserver's, it runs
   * `npm install @types/<name>` for the workspace's package.json dependencies (a project without a
   * tsconfig.json, or one whose `typeAcquisition` asks for it). Its switch is a preference it reads
   * only from `workspace/configuration` (an `initializationOptions.userPreferences` one is replaced
   * by that answer), so the launch answers with the row's configuration and the switch off.
   */
  private native(found: TypescriptPackage, trusted: boolean): Launch {
    const executable = nativeCompiler(found.dir)
    if (!executable) {
      const platform = `@typescript/typescript-${process.platform}-${process.arch}`
      throw new LspError(`typescript ${found.version} ${found.where} has no native compiler for this platform (${platform} is not installed); reinstall it: ${INSTALL_NATIVE}`, 'LSP_UNAVAILABLE')
    }
    const launch: Launch = { executable, args: ['--lsp', '--stdio'], initializationOptions: withQuietLog(this.config.initializationOptions), label: `native ${found.version}` }
    return trusted ? launch : { ...launch, configuration: withoutNativeTypeAcquisition(this.config.configuration) }
  }

  /**
   * typescript-language-server over `found`'s tsserver. Untrusted, without automatic type acquisition:
   * its typingsInstaller runs `npm install @types/<name>` for the workspace's package.json dependencies.
   */
  private tsserver(found: TypescriptPackage, trusted: boolean): Launch {
    if ('missing' in this.bridge) throw new LspError(`typescript ${found.version} ${found.where} needs typescript-language-server: ${this.bridge.missing}; install: ${INSTALL_TSSERVER}`, 'LSP_UNAVAILABLE')
    const tsserver = join(found.dir, 'lib', 'tsserver.js')
    const options = withTsserverOptions(this.config.initializationOptions, tsserver)
    return { executable: this.bridge.executable, args: this.config.args, initializationOptions: trusted ? options : withoutTypeAcquisition(options), label: `tsserver ${found.version}` }
  }

  private unavailable(candidates: readonly TypescriptPackage[], refusal: Refusal | undefined): LspError {
    const found = candidates.length ? `found ${candidates.map((found) => `typescript ${found.version} ${found.where}`).join(' and ')}` : 'no typescript package in the workspace or beside dsh'
    const seen = refusal ? `${found}; typescript ${refusal.found.version} ${refusal.found.where} was not run (the workspace is not trusted: ${refusal.decision.command})` : found
    switch (this.choice) {
      case 'auto':
        return new LspError(`no TypeScript to serve this workspace: ${seen}; install: ${INSTALL_NATIVE}`, 'LSP_UNAVAILABLE')
      case 'native':
        return new LspError(`the native TypeScript server needs typescript 7 or later: ${seen}; install: ${INSTALL_NATIVE}`, 'LSP_UNAVAILABLE')
      case 'tsserver':
        return new LspError(`tsserver needs typescript 5 or earlier (7 has none): ${seen}; install: ${INSTALL_TSSERVER}`, 'LSP_UNAVAILABLE')
      default:
        return assertNever(this.choice, 'typescript server choice')
    }
  }
}

function sameDirectory(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b)
  } catch {
    return false
  }
}

/** The `typescript` package that `require('typescript')` would load beside dsh, if any. */
function installedTypescript(): string | null {
  try {
    return dirname(createRequire(import.meta.url).resolve('typescript/package.json'))
  } catch {
    return null
  }
}

function packageAt(dir: string, where: string): TypescriptPackage | undefined {
  let manifest: unknown
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  } catch {
    return undefined
  }
  const version = (manifest as { version?: unknown } | null)?.version
  if (typeof version !== 'string') return undefined
  const major = Number.parseInt(version, 10)
  return Number.isInteger(major) ? { dir, version, native: major >= 7, where } : undefined
}

/**
 * TypeScript 7's compiler binary, from the platform package beside `typescript` (what its `bin/tsc`
 * launcher runs). Started directly: on Node 20 the launcher would stay between us as a second process.
 */
function nativeCompiler(typescriptDir: string): string | undefined {
  try {
    // From the real directory: a linked install (pnpm) keeps the platform package beside the target.
    const platformPackage = createRequire(join(realpathSync(typescriptDir), 'package.json')).resolve(`@typescript/typescript-${process.platform}-${process.arch}/package.json`)
    const executable = join(dirname(platformPackage), 'lib', process.platform === 'win32' ? 'tsc.exe' : 'tsc')
    return existsSync(executable) ? executable : undefined
  } catch {
    return undefined
  }
}

/**
 * TypeScript 7's server logs every request it handles at Info (`window/logMessage`, about nine
 * messages per change, each read, decoded and handed on by our process). `logVerbosity` is its
 * `lsproto.LogVerbosity` (Off 0, Trace 1, Debug 2, Info 3, Warning 4, Error 5; internal/lsp/logger.go):
 * Warning keeps warnings and errors, all a fatal-log pattern can match. A row's own wins.
 */
const NATIVE_LOG_VERBOSITY_WARNING = 4

function withQuietLog(options: ServerConfig['initializationOptions']): ServerConfig['initializationOptions'] {
  if (options === null) return { logVerbosity: NATIVE_LOG_VERBOSITY_WARNING }
  if (typeof options !== 'object' || Array.isArray(options)) return options
  return { logVerbosity: NATIVE_LOG_VERBOSITY_WARNING, ...options }
}

/**
 * TypeScript 7's preferences come from the `javascript`, `typescript` and `js/ts` sections of
 * `workspace/configuration`, in that order of precedence; `js/ts`'s `tsserver.automaticTypeAcquisition.enabled`
 * (the unified setting) wins over the deprecated `disableAutomaticTypeAcquisition`
 * (internal/ls/lsutil/userpreferences.go, IsATADisabled). A row that names either keeps its own word.
 */
const NATIVE_ATA_SECTIONS = ['javascript', 'typescript', 'js/ts'] as const

function withoutNativeTypeAcquisition(configuration: ServerConfig['configuration']): ServerConfig['configuration'] {
  const base = plainObject(configuration) ?? {}
  for (const section of NATIVE_ATA_SECTIONS) {
    const settings = plainObject(base[section])
    if (settings && ('disableAutomaticTypeAcquisition' in settings || plainObject(plainObject(settings.tsserver)?.automaticTypeAcquisition)?.enabled !== undefined)) return configuration
  }
  const jsts = plainObject(base['js/ts']) ?? {}
  const tsserver = plainObject(jsts.tsserver) ?? {}
  const acquisition = plainObject(tsserver.automaticTypeAcquisition) ?? {}
  return { ...base, 'js/ts': { ...jsts, tsserver: { ...tsserver, automaticTypeAcquisition: { ...acquisition, enabled: false } } } }
}

type JsonObject = { readonly [key: string]: ServerConfig['configuration'] }

function plainObject(value: ServerConfig['configuration'] | undefined): JsonObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined
}

/** `disableAutomaticTypingAcquisition: true`, unless the row's own initializationOptions set it. */
function withoutTypeAcquisition(options: { readonly [key: string]: ServerConfig['initializationOptions'] }): ServerConfig['initializationOptions'] {
  return 'disableAutomaticTypingAcquisition' in options ? options : { ...options, disableAutomaticTypingAcquisition: true }
}

/**
 * typescript-language-server's `tsserver` options: `path`, and `useSyntaxServer: "never"`, each
 * unless the row set it. With its default (`auto`) the bridge starts a second, partial-semantic
 * tsserver and sends it definition, references, implementation and hover until the full server
 * has loaded the project. That one sees only the open file: a definition across files answers the
 * import line, references miss other files. The full server answers the same requests once it has
 * loaded, so a query during a slow load waits (bounded by requestTimeoutMs) instead of getting an
 * answer that looks complete and is wrong; and each workspace runs one tsserver instead of two.
 */
function withTsserverOptions(options: ServerConfig['initializationOptions'], path: string): { readonly [key: string]: ServerConfig['initializationOptions'] } {
  const base = plainObject(options) ?? {}
  const tsserver = plainObject(base.tsserver) ?? {}
  return { ...base, tsserver: { useSyntaxServer: 'never', ...tsserver, path: typeof tsserver.path === 'string' ? tsserver.path : path } }
}
