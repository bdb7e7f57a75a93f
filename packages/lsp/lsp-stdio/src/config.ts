import { MAX_TIMER_DELAY_MS } from 'dsh-core'
import { z } from 'zod'
import { SERVER_CATALOG } from './catalog.ts'
import { NEW_NAME_RULES } from './new-name-rules.ts'

const budget = (fallback: number) => z.number().int().positive().max(MAX_TIMER_DELAY_MS).default(fallback)
const positive = (fallback: number) => z.number().int().positive().default(fallback)
const ROOT_MARKER = z
  .string()
  .min(1)
  .refine((name) => name !== '.' && name !== '..' && !/[/\\]/.test(name), 'a root marker is the name of a file or directory (go.mod), not a path')

/** A regular expression (JavaScript syntax), checked to compile at load. */
const PATTERN = z.string().refine((source) => {
  try {
    new RegExp(source)
    return true
  } catch {
    return false
  }
}, 'not a regular expression that compiles')

/** A path below a server's root (`build/compile_commands.json`): relative, with no `..`. */
const ROOT_FILE = z
  .string()
  .min(1)
  .refine((path) => !/^([/\\]|[A-Za-z]:)/.test(path) && !path.split(/[/\\]/).some((part) => part === '..' || part === '.' || part === ''), 'a path relative to the server\'s root, with no . or .. parts (build/compile_commands.json)')

/** One language server. Every number varies by deployment, so each is a field with a default. */
export const ServerConfig = z.strictObject({
  /** A bare name (searched in node_modules/.bin and PATH) or an absolute path; never a shell line. */
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Applied over the scrubbed parent environment; `null` removes an inherited variable. */
  env: z.record(z.string(), z.string().nullable()).default({}),
  /** `.ts` (or `ts`) → LSP language id. Checked by ctx.lsp at registration. */
  extensionToLanguage: z.record(z.string(), z.string()),
  /**
   * File name → LSP language id, for files known by name: `Dockerfile`, `.bashrc`, or `Dockerfile.*`
   * for the name followed by any suffix. Case-insensitive; wins over extensions. Checked by ctx.lsp.
   */
  filenameToLanguage: z.record(z.string(), z.string()).default({}),
  /**
   * Files or directories that mark a project root (`go.mod`, `Cargo.toml`). A file is served by a
   * server started in the nearest directory at or above it, never above the session workspace,
   * that holds one; with none, the workspace itself. Earlier entries take precedence over later
   * ones however near (`[go.work, go.mod]`); the names of a nested list count alike (the nearest wins).
   */
  rootMarkers: z.array(z.union([ROOT_MARKER, z.array(ROOT_MARKER).min(1)])).default([]),
  /** How to install the server: shown in `dsh status` and in the error when its executable is missing. */
  install: z.string().min(1).optional(),
  /**
   * Marks the TypeScript server, whose process is chosen per workspace from the `typescript` found
   * there (or beside the installation): `native` runs TypeScript 7's own server (`tsc --lsp
   * --stdio`), `tsserver` runs `command` (typescript-language-server) over TypeScript 5's tsserver,
   * `auto` takes native for TypeScript 7 or later and tsserver before it.
   */
  typescript: z.enum(['auto', 'native', 'tsserver']).optional(),
  /**
   * A command that must succeed before a server first starts in a directory: the server's
   * executable with `args`, exiting 0 within `timeoutMs`. Run once per executable and directory;
   * a failure makes the row `unavailable` with the command's first line of stderr and `install`
   * (an installed shim that cannot run its tool: rustup without the rust-analyzer component).
   */
  preflight: z.strictObject({ args: z.array(z.string()), timeoutMs: budget(10_000) }).optional(),
  /**
   * Why the server (or a tool it runs) executes code of the workspace it serves: set, it starts only
   * in a workspace its user trusts (`dsh trust <dir>`); elsewhere its row says so and queries fail
   * with `LSP_UNTRUSTED`. The catalog sets it for rust-analyzer.
   */
  runsWorkspaceCode: z.string().min(1).optional(),
  /**
   * Variables set (`null`: removed) when the server starts in a workspace its user does not trust,
   * for a tool the server runs that would otherwise follow the workspace's files to the network or
   * to a binary of its choosing. A variable `env` names keeps `env`'s value. The catalog's go sets
   * `GOTOOLCHAIN: local` (a Go ≥ 1.21 `go` otherwise downloads and runs the toolchain a go.mod or
   * go.work names). Default none.
   */
  untrustedEnv: z.record(z.string(), z.string().nullable()).default({}),
  /**
   * `initializationOptions` keys set (over the row's `initializationOptions`) when the server starts
   * in a workspace its user does not trust; a row that wants otherwise sets its own. The catalog's json sets
   * `handledSchemaProtocols: []`: a file's `$schema` may name any file on disk, and the server shows
   * what it read (an `enum`'s values); with it the server asks dsh (`vscode/content`), which reads
   * only files inside the server's directory. Default none.
   */
  untrustedInitializationOptions: z.record(z.string(), z.json()).default({}),
  /**
   * File or directory names the server's tools look up in every directory above its root (cargo's
   * `.cargo`, rustup's `rust-toolchain.toml`, go's `go.work`). For `runsWorkspaceCode` and
   * `untrustedEnv`, a root below a trusted directory counts as untrusted when one of them is in a
   * directory above it that is not trusted (a trusted `/w/app` in an untrusted `/w` whose
   * `.cargo/config.toml` names a `rustc-wrapper`). The user's home and above are not looked at.
   * Default none.
   */
  readsAbove: z.array(z.string().min(1).regex(/^[^/]+$/, 'a name, not a path')).default([]),
  /**
   * Regular expressions (JavaScript syntax) for a `window/logMessage` or `window/showMessage` of
   * type Error that means the server is broken though its process lives on: its backend died
   * (typescript-language-server after its tsserver is killed ends its progress as if the project
   * had loaded, then answers every request empty). Such a server is replaced like one that exited.
   */
  fatalLogPatterns: z.array(PATTERN).default([]),
  /**
   * Work a server announces only in its log (`window/logMessage`, any type), not by progress:
   * bash-language-server's background analysis of the workspace. A line matching `begin` starts it,
   * one matching `end` ends it; with `fromInitialized` it counts as begun at `initialized` (the
   * server starts it then, before its first log line can arrive). Queries wait for it as for
   * `$/progress`, and `dsh status` shows `title` meanwhile.
   */
  logProgress: z.strictObject({ title: z.string().min(1), begin: PATTERN, end: PATTERN, fromInitialized: z.boolean().default(false) }).optional(),
  /**
   * The most matches the server gives a workspace symbol search, when it has a fixed cap it does not
   * report (gopls and clangd stop at 100). An answer of exactly this many is marked `capped`: the
   * `lsp_symbols` tool then says the list may be incomplete and how to narrow the query. Unset: no
   * known cap (typescript-language-server, TypeScript 7 and pyright return every match).
   */
  workspaceSymbolLimit: z.number().int().positive().optional(),
  /**
   * Files, one of which the server needs in its root to know the workspace's files (clangd: a
   * `compile_commands.json` at the root or in `build/`; without one it sees only the files open).
   * With none there, an empty workspace search and a call hierarchy with no calls carry a note
   * naming the files and `note` (what happens without them, how to make one), and so does the row's
   * `dsh status` detail; otherwise such an answer reads as "nothing matches" with no hint why.
   */
  workspaceIndex: z.strictObject({ files: z.array(ROOT_FILE).min(1), note: z.string().min(1) }).optional(),
  /**
   * The language whose identifiers a rename's new name must be when the old name is one
   * (`ecmascript`, `python`): tsserver, TypeScript 7's server and pyright compute an edit to `1abc`,
   * `a-b` or (pyright) `class` and `apply` wrote it. Unset: the server's judgement alone (gopls and
   * clangd check names themselves).
   */
  newNames: z.enum(NEW_NAME_RULES).optional(),
  /** Sent verbatim as `initialize.params.initializationOptions`. */
  initializationOptions: z.json().default(null),
  /** Answers `workspace/configuration`: an item's `section` (dotted) is looked up in it, else the whole value. */
  configuration: z.json().default(null),
  /**
   * Notifications sent right after `initialized`, in order, before any document is opened: a server's
   * own switches that no setting has (the catalog's yaml sends `yaml/registerContentRequest`, so it asks
   * dsh for an http(s) `$schema` a file names instead of fetching it). Default none.
   */
  initializedNotifications: z.array(z.strictObject({ method: z.string().min(1), params: z.json().optional() })).default([]),
  /** `host`: send our pid as `processId`, so the server exits if we are killed; `none`: send null. */
  processId: z.enum(['host', 'none']).default('host'),
  /** Source files larger than this are refused before any server starts. */
  maxDocumentBytes: positive(4_000_000),
  /**
   * Inbound messages larger than this are refused before their body is read; the server is replaced.
   * The header block before each message (stray banner lines included) is bounded separately, at 64 KiB.
   */
  maxMessageBytes: positive(16_000_000),
  /** The tail of the server's stderr kept and shown, whole, in the error message when it exits. */
  maxStderrBytes: positive(2_000),
  /** Deadline for the `initialize` handshake. */
  initializeTimeoutMs: budget(30_000),
  /**
   * After `initialized`, how long to wait for the server to refuse one `$/` request, so that what it
   * asks right after the handshake (its configuration) is answered before the first document
   * opens; 0 skips it.
   */
  handshakeSettleMs: z.number().int().nonnegative().max(MAX_TIMER_DELAY_MS).default(2_000),
  /** Deadline for one request when the caller brings none shorter. */
  requestTimeoutMs: budget(60_000),
  /** How long a query waits for the server's `$/progress` (project loading) to end before answering anyway. */
  indexingTimeoutMs: budget(20_000),
  /**
   * Diagnostics of a server that publishes them (rather than answering `textDocument/diagnostic`):
   * how long to wait, once the server is quiet, for the publication that answers the file's open;
   * the answer is `complete: false` when it does not come (or keep changing) within this.
   */
  diagnosticsWaitMs: budget(10_000),
  /**
   * A publication without a version (typescript-language-server sends syntax and semantic
   * diagnostics one after the other) counts as the answer once no newer one followed for this long.
   */
  diagnosticsSettleMs: z.number().int().nonnegative().max(MAX_TIMER_DELAY_MS).default(200),
  /**
   * Documents a server that answers pulled diagnostics keeps open after being asked about them, so
   * the request after a change is an incremental `didChange` rather than a fresh open; the least
   * recently used beyond this is closed.
   */
  maxOpenDocuments: positive(50),
  /**
   * How long `dsh status`'s probe, once the server is up, waits for work it is at to end (a
   * progress, or a `logProgress` such as pyright's finding its source files, about a second after
   * its handshake) before it reports, so a small workspace reads `ready` rather than `indexing`.
   * Work going on past it is reported as `indexing`; 0 reports at once. Queries never wait for it.
   */
  probeSettleMs: z.number().int().nonnegative().max(MAX_TIMER_DELAY_MS).default(10_000),
  /** A work-done progress token still open after this long is treated as ended (a server that forgot to end it stops looking busy). */
  progressTimeoutMs: budget(600_000),
  /** Graceful `shutdown`/`exit` budget before the process group is killed. */
  shutdownTimeoutMs: budget(5_000),
  /** SIGTERM → SIGKILL grace, and how long a cancelled request may take to settle before the server is replaced. */
  killGraceMs: budget(2_000),
  /** A server unused for this long is shut down; the next query starts a new one. */
  idleTimeoutMs: budget(600_000),
  /** Live servers (one per workspace) this provider keeps; the least recently used idle one makes room. */
  maxServers: positive(4),
  /** Crash supervision: after `maxCrashes` crashes within `windowMs`, no restart for a backoff that doubles up to `maxBackoffMs`. */
  crashes: z
    .strictObject({
      maxCrashes: positive(3),
      windowMs: budget(60_000),
      backoffMs: budget(5_000),
      maxBackoffMs: budget(120_000),
    })
    .prefault({}),
})
export type ServerConfig = z.infer<typeof ServerConfig>

const SERVER_ID = /^[A-Za-z0-9_.-]+$/
const SERVER_ID_RULE = 'server ids must be non-empty and use only letters, digits, _ . -'

const CATALOG_IDS = Object.keys(SERVER_CATALOG) as [string, ...string[]]

export const LspStdioConfig = z
  .strictObject({
    /** Ready-made servers from catalog.ts: `all` (one per language), or a list of ids. */
    catalog: z
      .union([z.literal('all'), z.array(z.enum(CATALOG_IDS))], { error: () => `catalog must be "all" or a list of these ids: ${CATALOG_IDS.map((id) => JSON.stringify(id)).join(', ')}` })
      .optional(),
    // Each entry is checked as a ServerConfig below, once laid over the catalog's entry it adjusts.
    servers: z
      // zod reports a bad record key as a bare "Invalid key in record"; say what an id must look like.
      .record(z.string().regex(SERVER_ID, SERVER_ID_RULE), z.record(z.string(), z.unknown()), { error: (issue) => (issue.code === 'invalid_key' ? SERVER_ID_RULE : undefined) })
      .default({}),
  })
  .transform(({ catalog, servers }) => ({ servers: withCatalog(catalog, servers) }))
  .pipe(
    z
      .strictObject({ servers: z.record(z.string(), ServerConfig) })
      .refine((config) => Object.keys(config.servers).length > 0, { message: 'servers must contain at least one server (or name some in catalog)', path: ['servers'] }),
  )
export type LspStdioConfig = z.infer<typeof LspStdioConfig>

/**
 * The row's servers over the catalog's it takes. An entry of the same id that names a `command`
 * replaces the catalog's; one without adjusts it, each of its fields replacing the catalog's
 * (an overlay's `servers: { typescript: { killGraceMs: 300 } }` on the coding preset).
 */
function withCatalog(catalog: 'all' | readonly string[] | undefined, servers: Record<string, Record<string, unknown>>): Record<string, unknown> {
  const ids = catalog === 'all' ? Object.keys(SERVER_CATALOG).filter((id) => SERVER_CATALOG[id]!.inAll) : (catalog ?? [])
  const taken: Record<string, unknown> = Object.fromEntries(ids.map((id) => [id, SERVER_CATALOG[id]!.server]))
  for (const [id, server] of Object.entries(servers)) {
    const adjusted = taken[id]
    taken[id] = adjusted && !('command' in server) ? { ...adjusted, ...server } : server
  }
  return taken
}
