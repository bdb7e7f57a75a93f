import { TrustStore, type TrustHook } from 'dsh-core'
import { rowCell } from './terminal-text.ts'

interface PromptIo {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean }
}

/**
 * The `dsh` terminal's trust question, for a workspace with no recorded decision that brings
 * something trust-gated: asked once per directory and process (y/N, anything but y or yes is no),
 * and the answer recorded in trusted.json so the next command does not ask again. Undefined when
 * stdin or stderr is not a terminal: then nobody is asked and the workspace stays untrusted.
 */
export function terminalTrustPrompt(io: PromptIo, store = new TrustStore()): TrustHook | undefined {
  if (!io.stdin.isTTY || !io.stderr.isTTY) return undefined
  const answers = new Map<string, Promise<boolean>>()
  let queue: Promise<unknown> = Promise.resolve()
  return ({ directory, brings, recorded }) => {
    if (recorded !== undefined) return undefined
    let answer = answers.get(directory)
    if (!answer) {
      // One question on the terminal at a time.
      answer = queue.then(() => ask(io, directory, brings)).then(async (trusted) => {
        await store.record(directory, trusted)
        return trusted
      })
      queue = answer.catch(() => {})
      answers.set(directory, answer)
    }
    return answer
  }
}

function ask(io: PromptIo, directory: string, brings: string): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    // Loaded with the first prompt: most commands never ask.
    const lines = process.getBuiltinModule('node:readline').createInterface({ input: io.stdin, output: io.stderr, terminal: false })
    let settled = false
    const settle = (trusted: boolean) => {
      if (settled) return
      settled = true
      lines.close()
      // readline resumed stdin; leave it paused so it keeps nothing alive.
      io.stdin.pause()
      resolve(trusted)
    }
    lines.once('line', (line) => settle(/^\s*y(es)?\s*$/i.test(line)))
    lines.once('close', () => settle(false))
    // The directory's name and what it brings (a version from its package.json) are the repository's:
    // a control character or line feed there would act on the terminal and could rewrite this question.
    io.stderr.write(`dsh: ${rowCell(directory)} is not trusted, and it brings ${rowCell(brings)}.\n  Trust it (its TypeScript, .mcp.json servers, .env and skills are then used)? [y/N] `)
  })
}
