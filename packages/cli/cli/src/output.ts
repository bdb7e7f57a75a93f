import { errorMessage, isHarnessError, oneLine } from 'dsh-core'
import { UsageError } from './args.ts'
import { ExitCode } from './exit.ts'
import { shownOn } from './terminal-text.ts'

/** A write to stdout failed; the command's work is done, but its answer is lost. */
export class OutputError extends Error {}

/**
 * Writes `text` and resolves once the stream took it. A closed pipe (`dsh … | head`) or a full disk
 * becomes an `OutputError`, never an unhandled 'error' event with a stack trace. On a terminal the
 * text's control characters are shown, not obeyed (terminal-text.ts).
 */
export function writeOut(stream: NodeJS.WritableStream & { isTTY?: boolean }, text: string): Promise<void> {
  text = shownOn(stream, text)
  return new Promise<void>((resolve, reject) => {
    const fail = (error: unknown) => {
      stream.off('error', fail)
      reject(new OutputError(describeWriteFailure(error), { cause: error }))
    }
    stream.once('error', fail)
    // A file stdout (`> /dev/full`) writes synchronously and throws; a pipe reports through the callback.
    stream.write(text, (error) => {
      if (error) return fail(error)
      stream.off('error', fail)
      resolve()
    })
  })
}

/**
 * A lost answer, told the one way every command tells it: `dsh: the output could not be written: … [OUTPUT_FAILED]`
 * on stderr and exit 74. Undefined for any other error (the command reports that its own way).
 */
export function outputFailure(error: unknown, stderr: NodeJS.WritableStream & { isTTY?: boolean }): typeof ExitCode.OUTPUT | undefined {
  if (!(error instanceof OutputError)) return undefined
  tellStderr(stderr, `dsh: the output could not be written: ${error.message} [OUTPUT_FAILED]`)
  return ExitCode.OUTPUT
}

function describeWriteFailure(error: unknown): string {
  switch ((error as NodeJS.ErrnoException)?.code) {
    case 'EPIPE':
      return 'the reader closed the pipe (EPIPE)'
    case 'ENOSPC':
      return 'no space left on the device (ENOSPC)'
    default:
      return errorMessage(error)
  }
}

/** Resolves once process.stdout and process.stderr hold nothing unwritten (or have failed). */
export async function stdioFlushed(): Promise<void> {
  await Promise.all([process.stdout, process.stderr].map((stream) => flushed(stream)))
}

function flushed(stream: NodeJS.WriteStream): Promise<void> | undefined {
  if (stream.writableLength === 0 || stream.destroyed) return undefined
  // Writes complete in order: an empty one's callback runs after everything written before it.
  return new Promise<void>((resolve) => {
    try {
      stream.write('', () => resolve())
    } catch {
      resolve()
    }
  })
}

/** Best effort for diagnostics: stderr may be gone too, and then there is nobody left to tell. */
export function tellStderr(stream: NodeJS.WritableStream & { isTTY?: boolean }, line: string): void {
  try {
    stream.write(`${shownOn(stream, line)}\n`, () => {})
  } catch {
    // nothing more to do
  }
}

/**
 * The one `dsh:` line of a failure, ending with its code in brackets (`[PRESET_NOT_FOUND]`), which
 * scripts route on: every failure dsh reports this way has one. A command-line mistake (a
 * `UsageError`, with `help` naming the command whose --help to read) also says where the usage is.
 * An error without a code of its own gets the command's `uncoded` one.
 */
export function failureLine(error: unknown, { help, uncoded }: { help?: string; uncoded: string }): string {
  const usage = error instanceof UsageError
  const code = isHarnessError(error) || usage ? error.code : uncoded
  const hint = usage && help ? ` (${help} shows the usage)` : ''
  return `dsh: ${oneLine(errorMessage(error))}${hint} [${code}]`
}
