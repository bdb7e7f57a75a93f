import type { Questioner } from 'dsh-core'
import type { PromptIo } from './question-prompt.ts'

/**
 * `dsh call`'s answer to a server's question on a terminal (question-prompt.ts asks it). Undefined
 * when stdin or stderr is not a terminal: nobody is there to answer, so the question is declined at
 * once. The prompt's code (question-prompt.ts, question-form.ts: 15 KB of source) is imported at
 * the first question, not with the command: most calls ask none, and `dsh tools`, `status` and
 * `context` never do, yet loaded it at every start (issue 27 item 5).
 */
export function terminalQuestioner(io: PromptIo): Questioner | undefined {
  if (!io.stdin.isTTY || !io.stderr.isTTY) return undefined
  // One question on the terminal at a time: parallel calls wait their turn.
  let turn: Promise<unknown> = Promise.resolve()
  return (question) => {
    const answer = turn.then(async () => (await import('./question-prompt.ts')).askOnTerminal(io, question))
    turn = answer.catch(() => {})
    return answer
  }
}
