import { assertNever, bootPreset, createUserMessage, errorMessage, isHarnessError, Lifetime, TOOL_SEARCH, toolFailure, type Host, type ToolProgress, type ToolResult } from 'dsh-core'
import { checkWorkspace, invocationDir, parseInvocation, shippedPreset, USAGE, UsageError, UsageErrorCode, type Command, type Invocation } from './args.ts'
import { DEFAULT_MAX_MESSAGE_BYTES } from './serve-args.ts'
import { BOOT_INTERRUPTED_LINE, ExitCode } from './exit.ts'
import { routeLogsToStderr } from './logging.ts'
import { failureLine, outputFailure, stdioFlushed, tellStderr, writeOut } from './output.ts'
import { progressText, resultText, statusText, toolsText } from './render.ts'
import { StrayFailures } from './strays.ts'
import { terminalQuestioner } from './terminal-questioner.ts'
import { yesQuestioner } from './yes-questioner.ts'
import { terminalTrustPrompt } from './trust-prompt.ts'
import { configureZodFor } from './zod-mode.ts'

export interface Io {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean }
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean }
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  /**
   * The directory the command was given in: relative paths on its command line and the default
   * `--cwd` mean this. A process passes none and gets its own (args.ts invocationDir); a caller
   * running several commands in one process passes each its own.
   */
  readonly cwd?: string
  /**
   * The command's environment: `DSH_HOME`, `HOME`, keys and `DSH_*` settings are read from it, by
   * the command and by the host it boots (`ctx.dshHost.env`). A process passes none and gets its
   * own; a caller running a command in its process passes the command's, leaving `process.env` alone.
   * (Child processes the host starts still inherit the process's environment.)
   */
  readonly env?: NodeJS.ProcessEnv
}

/**
 * The `dsh` process: parse, boot, run one command, stop everything, exit. Whatever a plugin does
 * outside a call (an uncaught exception, an unhandled rejection, a promise nothing will ever settle)
 * ends the process with one `dsh:` line and `ExitCode.INTERNAL`; children are killed by the
 * subprocess service's exit hook. `dsh serve` logs a stray exception or rejection instead and goes
 * on serving (strays.ts).
 */
export async function run(argv: readonly string[]): Promise<void> {
  configureZodFor(argv)
  const command = new Lifetime()
  const onSignal = () => {
    if (command.aborted) process.exit(ExitCode.INTERRUPTED)
    command.abort(new Error('interrupted'))
  }
  let finished = false
  const strays = new StrayFailures()
  const neverFinishes = () => {
    if (finished) return
    tellStderr(process.stderr, 'dsh: internal error: the command can never finish (a plugin is waiting on a promise that nothing will settle) [INTERNAL_ERROR]')
    process.exit(ExitCode.INTERNAL)
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  process.on('uncaughtException', (error) => strays.handle('uncaught exception', error))
  process.on('unhandledRejection', (error) => strays.handle('unhandled rejection', error))
  process.on('beforeExit', neverFinishes)
  // Write failures are reported by writeOut; these listeners only keep late 'error' events quiet.
  process.stdout.on('error', () => {})
  process.stderr.on('error', () => {})
  let code: ExitCode
  try {
    code = await main(argv, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }, command.signal, strays)
  } catch (error) {
    strays.handle('failure', error)
    return
  }
  finished = true
  process.off('SIGINT', onSignal)
  process.off('SIGTERM', onSignal)
  process.exitCode = code
  // Everything we started is stopped and the answer is written: the process ends once stdout and
  // stderr have handed their last bytes to the system, without draining the event loop. A stray
  // handle in a third-party plugin must not keep us alive, and a natural exit would also free the
  // whole heap and finish a pending collection first (≈ 6 % of `dsh tools`' CPU; issue 27 item 5).
  // The timer covers a reader that never takes the last bytes.
  setTimeout(() => process.exit(), 1000).unref()
  await stdioFlushed()
  // One more turn of the loop: a rejection a plugin left unhandled is only reported once the turn
  // it happened in ends, and a timer already due fires; either ends the process with exit 70.
  await new Promise((resolve) => setTimeout(resolve, 0))
  process.exit()
}

export async function main(argv: readonly string[], io: Io, signal: AbortSignal = new Lifetime().signal, strays = new StrayFailures()): Promise<ExitCode> {
  // `dsh mcp …` manages servers with options of its own (src/mcp/command.ts). It and `serve` are
  // imported when used: both load the MCP SDK, which the other commands never need.
  if (argv[0] === 'mcp') return (await import('./mcp/command.ts')).runMcpCommand(argv.slice(1), io, signal)
  if (argv[0] === 'trust') return (await import('./trust-command.ts')).runTrustCommand(argv.slice(1), io)
  const env = io.env ?? process.env
  let invocation: Invocation
  try {
    invocation = parseInvocation(argv, io.cwd ?? invocationDir(env), env)
    if (invocation.command.kind !== 'help') checkWorkspace(invocation.cwd)
  } catch (error) {
    // What the environment lacks (HOME_UNKNOWN: no home to find the user's overlays in; DSH_HOME_INVALID) is told like a usage error, with its code.
    if (!isHarnessError(error) && !(error instanceof UsageError)) throw error
    tellStderr(io.stderr, failureLine(error, { help: 'dsh --help', uncoded: 'USAGE_INVALID' }))
    return ExitCode.USAGE
  }
  const { command } = invocation
  if (command.kind === 'help') return write(io, `${USAGE}\n`)

  const logs = routeLogsToStderr({ verbose: invocation.verbose, stderr: io.stderr, env })
  // On a terminal, an untrusted workspace that brings something trust-gated is asked about once;
  // `serve` never asks (its stdin is the MCP client's channel).
  const askTrust = command.kind === 'serve' ? undefined : terminalTrustPrompt(io)
  let host: Host
  try {
    host = await bootPreset({
      preset: invocation.preset,
      presetTwin: shippedPreset(invocation.preset),
      overlays: invocation.overlays,
      signal,
      // Only `serve` outlives its first answer; the other commands spare plugins their long-run work (watchers).
      lifetime: command.kind === 'serve' ? 'long-lived' : 'one-shot',
      workspace: invocation.cwd,
      env,
      // This process has its own policy for stray failures (StrayFailures).
      containStrayRejections: false,
      ...(askTrust ? { askTrust } : {}),
      ...(invocation.startTimeoutMs ? { startTimeoutMs: invocation.startTimeoutMs } : {}),
    })
  } catch (error) {
    logs.booted(false)
    if (isHarnessError(error) && error.code === 'PRESET_BOOT_ABORTED') {
      tellStderr(io.stderr, BOOT_INTERRUPTED_LINE)
      return ExitCode.INTERRUPTED
    }
    // Every boot failure is a PresetError with its code; anything else still gets one.
    tellStderr(io.stderr, failureLine(error, { uncoded: 'BOOT_FAILED' }))
    return ExitCode.USAGE
  }
  logs.booted(true)
  if (io.stderr.isTTY) {
    host.app.on('readiness/progress', (surface, id, message) => tellStderr(io.stderr, `… ${surface}/${id}: ${message}`))
  }
  let outcome: Outcome
  try {
    outcome = await execute(host, invocation, command, io, signal, strays)
  } catch (error) {
    if (signal.aborted) outcome = { code: ExitCode.INTERRUPTED, output: '' }
    else if (error instanceof UsageError) outcome = { code: ExitCode.USAGE, output: '', failure: failureLine(error, { uncoded: 'USAGE_INVALID' }) }
    else throw error
  } finally {
    // Stopped before the answer is written, so a reader that never drains cannot keep servers alive.
    await host.stop()
  }
  // `serve` ends on a signal by design; any other command the signal cut short was interrupted.
  if (signal.aborted && command.kind !== 'serve' && outcome.code === ExitCode.OK) return ExitCode.INTERRUPTED
  if (outcome.code === ExitCode.INTERRUPTED) return outcome.code
  if (outcome.failure !== undefined) {
    tellStderr(io.stderr, outcome.failure)
    return outcome.code
  }
  const written = outcome.output ? await write(io, outcome.output) : ExitCode.OK
  return written === ExitCode.OK ? outcome.code : written
}

interface Outcome {
  readonly code: ExitCode
  /** What goes to stdout on success. */
  readonly output: string
  /** Instead of output: the one `dsh: … [CODE]` line for stderr. */
  readonly failure?: string
}

async function write(io: Io, text: string): Promise<ExitCode> {
  try {
    await writeOut(io.stdout, text)
    return ExitCode.OK
  } catch (error) {
    const failed = outputFailure(error, io.stderr)
    if (failed === undefined) throw error
    return failed
  }
}

async function execute(host: Host, invocation: Invocation, command: Exclude<Command, { kind: 'help' }>, io: Io, signal: AbortSignal, strays: StrayFailures): Promise<Outcome> {
  const { app } = host
  const answer = (json: unknown, text: string, code: ExitCode = ExitCode.OK) => ({ code, output: invocation.json ? `${JSON.stringify(json)}\n` : `${text}\n` })
  switch (command.kind) {
    case 'status': {
      const readiness = app.get('readiness')
      if (!readiness) throw new UsageError('this preset mounts no dsh-core/readiness row', UsageErrorCode.PRESET_ROW_MISSING)
      const capabilities = await readiness.report({ probe: true, signal, cwd: invocation.cwd })
      return answer({ capabilities }, statusText(capabilities))
    }
    case 'tools': {
      const runtime = requireTools(host)
      const tools = runtime.catalog({ all: command.all })
      return answer({ tools }, toolsText(tools, (name) => runtime.get(name)?.approval))
    }
    case 'call': {
      const args = await parseToolArguments(command.input, io.stdin, signal)
      const session = requireSessions(host).create({ cwd: invocation.cwd })
      const tools = requireTools(host)
      // The operator typed --yes: every `prompt` tool is approved (a `deny` tool still is not). Gone with the host.
      // It also accepts what a server asks with its proposed defaults (a form), and declines what
      // needs more, saying so on stderr.
      if (command.approve) {
        tools.approver(() => ({ approved: true }))
        tools.questioner(yesQuestioner(io.stderr))
      } else {
        // Without --yes, a person at a terminal answers; with nobody there, questions are declined.
        const questioner = terminalQuestioner(io)
        if (questioner) tools.questioner(questioner)
      }
      // Progress is for a person watching a terminal; a script reading stderr gets only diagnostics.
      const onProgress = io.stderr.isTTY ? (update: ToolProgress) => tellStderr(io.stderr, progressText(command.tool, update)) : undefined
      const executed = await tools.execute({ name: command.tool, arguments: args, session, signal, ...(onProgress ? { onProgress } : {}) })
      const result = executed.isError && executed.error.code === 'UNKNOWN_TOOL' ? ((await turnedOffExplainer(invocation)(command.tool)) ?? executed) : executed
      return answer(result, resultText(result), result.isError ? ExitCode.TOOL_ERROR : ExitCode.OK)
    }
    case 'context': {
      const sessions = requireSessions(host)
      const session = sessions.create({ cwd: invocation.cwd })
      const messages: { role: string; source: string; text: string }[] = []
      const prompt = app.get('tools')?.sections() ?? []
      if (prompt.length) messages.push({ role: 'system', source: 'prompt', text: prompt.map((section) => section.text).join('\n\n') })
      for (const text of command.messages) {
        const decision = await sessions.runPreStep(session, [createUserMessage(text, { kind: 'user' })], signal)
        if (decision.kind === 'reject') {
          messages.push({ role: 'system', source: 'pre-step/reject', text: decision.reason })
          continue
        }
        for (const message of decision.messages) {
          messages.push({ role: message.role, source: message.source.kind, text: message.content.map((block) => block.text).join('\n') })
        }
      }
      if (command.searches.length) {
        const tools = requireTools(host)
        // tool_search is listed only while the runtime withholds a tool; asking it otherwise would print
        // the runtime's "no tool named" for a name the docs promise, so say why it is absent instead.
        if (!tools.catalog({ session }).some((tool) => tool.name === TOOL_SEARCH)) {
          messages.push({ role: 'tool', source: TOOL_SEARCH, text: NOTHING_WITHHELD })
        } else {
          for (const query of command.searches) {
            const result = await tools.execute({ name: TOOL_SEARCH, arguments: { query }, session, signal })
            messages.push({ role: 'tool', source: TOOL_SEARCH, text: result.content.map((block) => block.text).join('\n') })
          }
        }
        messages.push({ role: 'system', source: 'tools', text: tools.catalog({ session }).map((tool) => tool.name).join('\n') })
      }
      return answer({ messages }, messages.map((m) => `[${m.role}:${m.source}]\n${m.text}`).join('\n\n'))
    }
    case 'serve': {
      const release = strays.contain(host)
      try {
        if (command.http) {
          const { serveHttp } = await import('./serve-http.ts')
          await serveHttp(host, requireTools(host), requireSessions(host), { ...command, ...command.http, cwd: invocation.cwd, signal, stderr: io.stderr, explainUnknownTool: turnedOffExplainer(invocation) })
        } else {
          const { serve } = await import('./serve.ts')
          await serve(host, requireTools(host), requireSessions(host), { ...command, cwd: invocation.cwd, signal, stdin: io.stdin, stdout: io.stdout, explainUnknownTool: turnedOffExplainer(invocation) })
        }
      } finally {
        release()
      }
      return { code: ExitCode.OK, output: '' }
    }
    default:
      return assertNever(command, 'command')
  }
}

const NOTHING_WITHHELD =
  'No search was run: this composition withholds no tool (every tool is listed, within the defer budget of dsh-core/tools, or defer is off), so tool_search is not offered. `dsh tools --all` lists every registered tool.'

/**
 * What explains a call to `mcp__<server>__…` that found no tool, when the composition holds that
 * server turned off by a `disabled: true` row (nothing of the row loads, so the runtime knows no more
 * than UNKNOWN_TOOL): an error saying so, where, and how to turn it on (MCP_SERVER_DISABLED). `dsh
 * call` asks it once, `dsh serve` on each such call. The composition is listed on the first such
 * call only, dsh-mcp's listing imported with it (a start loads neither: lazy-load.test.ts), and
 * once: the host booted from it and does not reload it.
 */
export function turnedOffExplainer(invocation: Invocation): (tool: string) => Promise<ToolResult | undefined> {
  let listed: Promise<readonly import('./mcp/servers.ts').ServerEntry[] | undefined> | undefined
  return async (tool) => {
    if (!tool.startsWith('mcp__')) return undefined
    const { composedServers, turnedOffCall } = await import('./mcp/servers.ts')
    // The composition booted a moment ago; a file that cannot be listed now leaves the runtime's answer as it was.
    listed ??= composedServers({ preset: invocation.preset, presetTwin: shippedPreset(invocation.preset), overlays: invocation.overlays, cwd: invocation.cwd }).catch(() => undefined)
    const entries = await listed
    const error = entries && turnedOffCall(tool, entries)
    return error ? toolFailure(error) : undefined
  }
}

function requireTools(host: Host) {
  const tools = host.app.get('tools')
  if (!tools) throw new UsageError('this preset mounts no dsh-core/tools row', UsageErrorCode.PRESET_ROW_MISSING)
  return tools
}

function requireSessions(host: Host) {
  const sessions = host.app.get('sessions')
  if (!sessions) throw new UsageError('this preset mounts no dsh-core/sessions row', UsageErrorCode.PRESET_ROW_MISSING)
  return sessions
}

async function parseToolArguments(input: string | undefined, stdin: NodeJS.ReadableStream, signal: AbortSignal): Promise<unknown> {
  const text = input === '-' ? await Lifetime.run({ signal }, () => readUtf8(stdin, DEFAULT_MAX_MESSAGE_BYTES)) : (input ?? '{}')
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new UsageError(`the tool arguments are not valid JSON: ${errorMessage(error)}`, UsageErrorCode.CALL_ARGS_INVALID)
  }
}

/**
 * The arguments `call -` reads, up to `maxBytes` (the bound `dsh serve` puts on one incoming message,
 * so what one accepts the other does): stdin that goes on (`< /dev/zero`, a runaway producer) is a
 * usage error, not a process that grows until the machine runs out of memory.
 */
async function readUtf8(stream: NodeJS.ReadableStream, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = []
  let bytes = 0
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    bytes += buffer.length
    if (bytes > maxBytes) throw new UsageError(`the tool arguments on stdin are over ${maxBytes} bytes`, UsageErrorCode.CALL_ARGS_INVALID)
    chunks.push(buffer)
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks))
  } catch {
    throw new UsageError('the tool arguments on stdin are not valid UTF-8', UsageErrorCode.CALL_ARGS_INVALID)
  }
}
