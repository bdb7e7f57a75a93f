import { readFile } from 'node:fs/promises'
import { bootPreset, createUserMessage, errorMessage, type Host } from 'dsh-core'
import { parseInvocation, USAGE, UsageError, type Command, type Invocation } from './args.ts'
import { routeLogsToStderr } from './logging.ts'
import { resultText, statusText, toolsText } from './render.ts'

export interface Io {
  readonly stdout: NodeJS.WritableStream
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean }
  readonly stdin: NodeJS.ReadableStream
}

const EXIT_OK = 0
const EXIT_TOOL_ERROR = 1
const EXIT_USAGE = 2

/** The `dsh` process: parse, boot, run one command, stop everything, exit. */
export async function run(argv: readonly string[]): Promise<void> {
  const controller = new AbortController()
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(130)
    controller.abort(new Error('interrupted'))
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  const code = await main(argv, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }, controller.signal)
  process.off('SIGINT', onSignal)
  process.off('SIGTERM', onSignal)
  process.exitCode = controller.signal.aborted ? 130 : code
  // Everything we started is stopped; a stray handle in a third-party plugin must not keep us alive.
  setTimeout(() => process.exit(), 1000).unref()
}

export async function main(argv: readonly string[], io: Io, signal: AbortSignal = new AbortController().signal): Promise<number> {
  let invocation: Invocation
  try {
    invocation = parseInvocation(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    io.stderr.write(`dsh: ${error.message} (dsh --help shows the usage)\n`)
    return EXIT_USAGE
  }
  if (invocation.command.kind === 'help') {
    io.stdout.write(`${USAGE}\n`)
    return EXIT_OK
  }
  let booting = true
  routeLogsToStderr({ verbose: invocation.verbose, quiet: () => booting })
  let host: Host
  try {
    host = await bootPreset({ preset: invocation.preset, overlays: invocation.overlays })
  } catch (error) {
    io.stderr.write(`dsh: ${oneLine(errorMessage(error))}\n`)
    return EXIT_USAGE
  } finally {
    booting = false
  }
  if (io.stderr.isTTY) {
    host.app.on('readiness/progress', (surface, id, message) => io.stderr.write(`… ${surface}/${id}: ${message}\n`))
  }
  try {
    return await execute(host, invocation, invocation.command, io, signal)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    io.stderr.write(`dsh: ${error.message}\n`)
    return EXIT_USAGE
  } finally {
    await host.stop()
  }
}

async function execute(host: Host, invocation: Invocation, command: Command, io: Io, signal: AbortSignal): Promise<number> {
  const { app } = host
  const print = (json: unknown, text: string) => io.stdout.write(invocation.json ? `${JSON.stringify(json)}\n` : `${text}\n`)
  switch (command.kind) {
    case 'status': {
      const readiness = app.get('readiness')
      if (!readiness) throw new UsageError('this preset mounts no dsh-core/readiness row')
      const capabilities = await readiness.report({ probe: true, signal, cwd: invocation.cwd })
      print({ capabilities }, statusText(capabilities))
      return EXIT_OK
    }
    case 'tools': {
      const tools = requireTools(host).catalog()
      print({ tools }, toolsText(tools))
      return EXIT_OK
    }
    case 'call': {
      const args = await parseToolArguments(command.input, io.stdin)
      const session = requireSessions(host).create({ cwd: invocation.cwd })
      const result = await requireTools(host).execute({ name: command.tool, arguments: args, session, signal })
      print(result, resultText(result))
      return result.isError ? EXIT_TOOL_ERROR : EXIT_OK
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
      print({ messages }, messages.map((m) => `[${m.role}:${m.source}]\n${m.text}`).join('\n\n'))
      return EXIT_OK
    }
    case 'help':
      io.stdout.write(`${USAGE}\n`)
      return EXIT_OK
  }
}

function requireTools(host: Host) {
  const tools = host.app.get('tools')
  if (!tools) throw new UsageError('this preset mounts no dsh-core/tools row')
  return tools
}

function requireSessions(host: Host) {
  const sessions = host.app.get('sessions')
  if (!sessions) throw new UsageError('this preset mounts no dsh-core/sessions row')
  return sessions
}

async function parseToolArguments(input: string | undefined, stdin: NodeJS.ReadableStream): Promise<unknown> {
  const text = input === '-' ? await readAll(stdin) : (input ?? '{}')
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new UsageError(`the tool arguments are not valid JSON: ${errorMessage(error)}`)
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return Buffer.concat(chunks).toString('utf8')
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ')
}
