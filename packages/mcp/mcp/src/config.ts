import { MAX_TIMER_DELAY_MS } from 'dsh-core'
import { z } from 'zod'
import { expandedString } from './expand.ts'
import { SERVER_NAME_CHARACTERS, sharedNameProblem } from './naming.ts'
import { OAuthConfig } from './oauth/config.ts'

const budget = (fallback: number) => z.number().int().positive().max(MAX_TIMER_DELAY_MS).default(fallback)
const positive = (fallback: number) => z.number().int().positive().default(fallback)

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

const envName = z.string().regex(ENV_NAME, 'must look like an environment variable name')
const approvalMode = z.enum(['auto', 'prompt', 'deny'], { error: 'must be "auto", "prompt" or "deny"' })

/** Reconnection after a lost connection or a failed attempt: exponential, jittered, bounded. */
export const ReconnectConfig = z
  .strictObject({
    /** false: a lost server stays down (its tools fail with MCP_UNAVAILABLE) until the row is reloaded. */
    enabled: z.boolean().default(true),
    initialDelayMs: budget(500),
    maxDelayMs: budget(30_000),
    /** Consecutive failed attempts before the bridge gives up and unregisters the server's tools. */
    maxAttempts: positive(10),
    /** A connection that stayed up this long resets the attempt count (a crash loop does not). */
    stableAfterMs: budget(30_000),
    /** Each delay is scaled by a random factor in [1 - jitterRatio, 1 + jitterRatio]. */
    jitterRatio: z.number().min(0).max(1).default(0.2),
  })
  .refine((policy) => policy.initialDelayMs <= policy.maxDelayMs, { message: 'initialDelayMs must not exceed maxDelayMs', path: ['initialDelayMs'] })

const common = {
  /** The namespace of this server's tools: `mcp__<serverName>__<tool>`. */
  serverName: z
    .string()
    .regex(SERVER_NAME_CHARACTERS, 'must be 1 to 32 letters, digits, _ or -')
    .superRefine((name, issues) => {
      const problem = sharedNameProblem(name)
      if (problem) issues.addIssue({ code: 'custom', message: problem })
    }),
  /**
   * The MCP revision to speak: `auto` asks `server/discover` first and falls back to `initialize`
   * (2025-11-25 and older); a revision pins it (no fallback: a server that does not speak it fails
   * to connect with MCP_PROTOCOL_UNSUPPORTED).
   */
  protocol: z.enum(['auto', '2026-07-28', '2025-11-25'], { error: 'must be "auto", "2026-07-28" or "2025-11-25"' }).default('auto'),
  /** true: a startup failure fails the boot. false: the row starts with no tools and keeps retrying. */
  required: z.boolean().default(false),
  /** Deadline for connecting (spawn + initialize) and for each tools/list page. */
  startupTimeoutMs: budget(30_000),
  /** How long a tool call may go without an answer (or, with `resetTimeoutOnProgress`, without progress). */
  toolCallTimeoutMs: budget(60_000),
  /** Each `notifications/progress` of a call starts its `toolCallTimeoutMs` again, up to `maxTotalTimeoutMs` in all. */
  resetTimeoutOnProgress: z.boolean().default(true),
  /** The hard limit of one call whose progress keeps resetting its deadline. */
  maxTotalTimeoutMs: budget(600_000),
  /** The largest message read from the server; a larger one answers its request with MCP_MALFORMED_RESPONSE. */
  maxMessageBytes: z.number().int().min(1024).max(1024 ** 3).default(32 * 1024 * 1024),
  /** Raw tool names to publish (all when absent); applied before `disabledTools`. */
  enabledTools: z.array(z.string()).optional(),
  /** Raw tool names never to publish. */
  disabledTools: z.array(z.string()).default([]),
  /** The approval mode of this server's tools (dsh-core's gate): `auto` runs, `prompt` asks the harness's approver, `deny` refuses. */
  defaultApproval: approvalMode.default('auto'),
  /** Raw tool name → approval mode; beats annotations and `defaultApproval`. */
  toolApproval: z.record(z.string(), approvalMode).default({}),
  /** Without a `toolApproval` entry, a tool's annotations decide: `readOnlyHint` → auto, `destructiveHint` (not read-only) → prompt. */
  approvalFromAnnotations: z.boolean().default(false),
  /**
   * Whether this server's tools may wait behind `tool_search` (dsh-core's deferred tools): `auto`
   * once the deferrable tools pass the tools runtime's `defer` budget, `always`, or `never`.
   */
  defer: z.enum(['auto', 'always', 'never'], { error: 'must be "auto", "always" or "never"' }).default('auto'),
  /** A tools/list `ttlMs` (2026-07-28) shorter than this re-lists after this long instead. */
  listTtlFloorMs: z.number().int().nonnegative().default(5_000),
  reconnect: ReconnectConfig.prefault({}),
  /**
   * The longest dsh waits for a connection to close when the row unloads or a failed connection is
   * replaced (stdio: until the server's whole process group is gone, which takes up to
   * `shutdownGraceMs` + dsh-core/subprocess's `graceMs` + its `killWaitMs`). Past it the server is
   * abandoned (a stdio group is SIGKILLed at once, HTTP connections dropped), an error is logged, and
   * a failed server is not reconnected (two copies of it must never run at once).
   */
  closeTimeoutMs: budget(15_000),
  /** Longest text the model sees from one result; the rest is cut with a note (the value keeps it all). */
  maxResultChars: positive(100_000),
  /**
   * Longest description of one tool the model is given; a longer one is cut with a note. Every
   * model request carries every listed tool's description, so one server's 1 MB description would
   * cost every turn (Claude Code cuts them at 2 KB; this leaves room above that for a long but honest one).
   */
  maxDescriptionChars: z.number().int().min(200).default(4_000),
  /** M4: enter the server's `instructions` into each session (once per change), bounded by `maxInstructionsChars`. */
  instructions: z.boolean().default(false),
  maxInstructionsChars: positive(8_000),
  /** M4: publish `list_resources` and `read_resource` tools for this server. */
  resources: z.boolean().default(false),
  /** M4: list the server's prompts in `dsh status`. */
  prompts: z.boolean().default(false),
  /**
   * SEP-2640: when the server declares `io.modelcontextprotocol/skills` and a skill registry runs,
   * its skills join the catalog as `<server>-<name>` (listed from the entries, bodies read on load).
   */
  skills: z.boolean().default(true),
  /**
   * A `skills/list` that failed is tried again this many times on the same connection before a
   * reconnect or a `resources/list_changed` would list again (a server whose skill store was not
   * ready at connect); 0: not tried again.
   */
  skillsListRetries: z.number().int().min(0).max(20).default(4),
  /** The wait before the first retry of a failed `skills/list`; it doubles per retry (2, 4, 8, 16 s by default). */
  skillsListRetryMs: budget(2_000),
  /**
   * The deadline of one `skills/list`; absent: `startupTimeoutMs`. Its own field because a skill
   * store may be slower than the server's connect (or, in a test, a listing that never comes must
   * time out sooner than a connect that must not).
   */
  skillsListTimeoutMs: z.number().int().positive().max(MAX_TIMER_DELAY_MS).optional(),
  /**
   * Declare the `roots` capability and answer `roots/list` with the session workspace. Off by
   * default: some servers (server-filesystem) replace their configured allow-list with the roots.
   */
  roots: z.boolean().default(false),
  /**
   * Declare `elicitation` (form and URL mode) and put the server's questions to the host's
   * questioner (`ctx.tools.questioner`; `dsh call --yes` accepts a form's defaults); with nobody to
   * ask they are declined. `false`: the capability is not declared (the server may then list fewer tools).
   */
  elicitation: z.boolean().default(true),
}

/** The hard limit of a call cannot come before its idle deadline. */
const totalAfterIdle: [(config: { toolCallTimeoutMs: number; maxTotalTimeoutMs: number }) => boolean, { message: string; path: string[] }] = [
  (config) => config.maxTotalTimeoutMs >= config.toolCallTimeoutMs,
  { message: 'maxTotalTimeoutMs must not be less than toolCallTimeoutMs', path: ['maxTotalTimeoutMs'] },
]

export const StdioServerConfig = z.strictObject({
  transport: z.literal('stdio'),
  ...common,
  /** A bare name (searched on PATH, then the installation's node_modules/.bin) or an absolute path; never a shell line. */
  command: z.string().min(1),
  /** Passed as they are (no shell), after `${VAR}` / `${VAR:-default}` expansion. */
  args: z.array(expandedString).default([]),
  /** Set over the scrubbed parent environment (values `${VAR}`-expanded); `null` removes an inherited variable. */
  env: z.record(envName, expandedString.nullable()).default({}),
  /** Parent environment variables passed to the server as they are, even names the scrub would drop (`GITHUB_TOKEN`); unset ones are skipped. */
  envVars: z.array(envName).default([]),
  /** The server's working directory; empty means the host's workspace. A relative path resolves against the preset or overlay file that sets it. */
  cwd: z.string().default(''),
  /**
   * Without `cwd`, an untrusted workspace is not the server's working directory (a launcher such as
   * npx would run the workspace's own packages). True runs it there all the same: only for a command
   * that resolves nothing from its working directory (`dsh serve`, which applies trust itself).
   */
  runInUntrustedWorkspace: z.boolean().default(false),
  /** After stdin is closed, how long the server may take to exit before its process group is terminated. */
  shutdownGraceMs: budget(2_000),
})
  .refine(...totalAfterIdle)
  .refine((config) => config.closeTimeoutMs > config.shutdownGraceMs, { message: 'closeTimeoutMs must exceed shutdownGraceMs', path: ['closeTimeoutMs'] })

/** What a remote server (Streamable HTTP or the deprecated HTTP+SSE) is reached with. */
const remote = {
  ...common,
  /** `${VAR}`-expanded, then checked. */
  url: expandedString.pipe(z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })),
  /** Sent on every request (values `${VAR}`-expanded). */
  headers: z.record(z.string().regex(HEADER_NAME, 'must be an HTTP header name'), expandedString).default({}),
  /** Sent as `Authorization: Bearer <value>`; the value is looked up through ctx.credentials at each connect. */
  bearerTokenEnvVar: envName.optional(),
  /** Header name → variable name; values looked up through ctx.credentials at each connect. */
  envHeaders: z.record(z.string().regex(HEADER_NAME, 'must be an HTTP header name'), envName).default({}),
  /**
   * How long an idle connection to the server is kept for the next request, whatever the server's
   * `Keep-Alive` hint says. Keep it under the server's own idle limit (Node's and uvicorn's 5 s,
   * gunicorn's 2 s): a request sent on a connection the server is closing is lost.
   */
  keepAliveMs: budget(1_000),
  /** OAuth 2.1 settings (see oauth/config.ts); `false`: never OAuth, even when the server asks for it. */
  oauth: z.union([z.literal(false), OAuthConfig]).optional(),
}

type RemoteShape = { bearerTokenEnvVar?: string | undefined; headers: Record<string, string>; envHeaders: Record<string, string>; oauth?: false | OAuthConfig | undefined }

/** The checks every remote row shares: one source of `Authorization`. */
function remoteChecks<T extends z.ZodType<RemoteShape & { toolCallTimeoutMs: number; maxTotalTimeoutMs: number }>>(schema: T) {
  return schema
    .refine((config) => !(config.bearerTokenEnvVar && hasHeader(config, 'authorization')), {
      message: 'bearerTokenEnvVar sets Authorization; do not also set it in headers or envHeaders',
      path: ['bearerTokenEnvVar'],
    })
    .refine((config) => !(config.oauth && (config.bearerTokenEnvVar || hasHeader(config, 'authorization'))), {
      message: 'oauth sets Authorization; do not also set bearerTokenEnvVar or an Authorization header',
      path: ['oauth'],
    })
    .refine(...totalAfterIdle)
}

export const HttpServerConfig = remoteChecks(
  z.strictObject({
    transport: z.literal('streamable-http'),
    ...remote,
    /** How long closing waits for the server to acknowledge the end of the session (HTTP DELETE) before it stops every request anyway. */
    endSessionWaitMs: budget(1_000),
  }),
).refine((config) => config.closeTimeoutMs > config.endSessionWaitMs, { message: 'closeTimeoutMs must exceed endSessionWaitMs', path: ['closeTimeoutMs'] })

/** The deprecated HTTP+SSE transport (protocol 2024-11-05), for servers that still only speak it. */
export const SseServerConfig = remoteChecks(z.strictObject({ transport: z.literal('sse'), ...remote }))

function hasHeader(config: { headers: Record<string, string>; envHeaders: Record<string, string> }, name: string): boolean {
  return [...Object.keys(config.headers), ...Object.keys(config.envHeaders)].some((header) => header.toLowerCase() === name)
}

export const McpConfig = z.discriminatedUnion('transport', [StdioServerConfig, HttpServerConfig, SseServerConfig], {
  error: (issue) => (issue.code === 'invalid_union' ? 'transport must be "stdio", "streamable-http" or "sse"' : undefined),
})
export type McpConfig = z.infer<typeof McpConfig>
export type StdioServerConfig = z.infer<typeof StdioServerConfig>
export type HttpServerConfig = z.infer<typeof HttpServerConfig>
export type SseServerConfig = z.infer<typeof SseServerConfig>
/** A row reached over HTTP: Streamable HTTP or SSE. */
export type RemoteServerConfig = HttpServerConfig | SseServerConfig
export type ReconnectConfig = z.infer<typeof ReconnectConfig>
