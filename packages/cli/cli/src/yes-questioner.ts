import { acceptDefaults, assertNever, oneLine, requiredWithoutDefault, type Questioner, type UserQuestion } from 'dsh-core'
import { tellStderr } from './output.ts'

/** How much of a server's message or URL the line quotes: it is one line of stderr, not the question. */
const QUOTED_CHARS = 200

/**
 * `dsh call --yes`'s answer to a server's question (dsh-core `acceptDefaults`: a form's defaults when
 * every required field has one), and when that declines, one stderr line saying what was declined
 * and why. The server hears only `decline`, and the log says nothing (the question was answered):
 * without this line the person who typed --yes could not tell a decline from a server's own answer.
 */
export function yesQuestioner(stderr: NodeJS.WritableStream & { isTTY?: boolean }): Questioner {
  return (question) => {
    const answer = acceptDefaults(question)
    if (answer.action === 'decline') tellStderr(stderr, declinedLine(question))
    return answer
  }
}

const RULE = '--yes accepts only a form whose every required field has a default'

function declinedLine(question: UserQuestion): string {
  const from = `dsh: the MCP server ${quoted(question.source)}`
  switch (question.kind) {
    case 'url':
      return `${from} asks you to open a web page (${quoted(question.url)}): declined, as ${RULE}; a web page needs a person (dsh call without --yes, on a terminal) [MCP_QUESTION_DECLINED]`
    case 'form': {
      const missing = requiredWithoutDefault(question.schema).map(quoted)
      const names = missing.length > 1 ? `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)} have` : `${missing[0]} has`
      return `${from} asks: ${quoted(question.message)} — declined, as ${RULE}, and ${names} none (dsh call without --yes, on a terminal, asks for ${missing.length > 1 ? 'them' : 'it'}) [MCP_QUESTION_DECLINED]`
    }
    default:
      return assertNever(question, 'question')
  }
}

/** A server's words on our one line (tellStderr shows a terminal no control characters). */
function quoted(text: string): string {
  const line = oneLine(text)
  return line.length > QUOTED_CHARS ? `${line.slice(0, QUOTED_CHARS)}…` : line
}
