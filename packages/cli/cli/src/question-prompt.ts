import type { Interface } from 'node:readline'
import { assertNever, Lifetime, type JsonValue, type UserAnswer, type UserQuestion } from 'dsh-core'
import { answerField, formFields, type FormField } from './question-form.ts'
import { terminalText } from './terminal-text.ts'

export interface PromptIo {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean }
}

/**
 * One question asked on the terminal (terminal-questioner.ts takes them in turn): a form is asked
 * field by field (the default in brackets, an empty line takes it; choices numbered; yes/no as y/n),
 * each line checked against the field's schema and asked again until it fits, then one last
 * "send?" (n declines); a URL is printed with its host and dsh waits until the person says they are
 * done there (or declines). End of input cancels.
 */
export async function askOnTerminal(io: PromptIo, question: UserQuestion): Promise<UserAnswer> {
  const lifetime = Lifetime.following(question.signal)
  const lines = new TerminalLines(io)
  const stop = lifetime.onAbort(() => lines.close())
  try {
    switch (question.kind) {
      case 'form':
        return await askForm(io, lines, question)
      case 'url':
        return await askVisit(io, lines, question)
      default:
        return assertNever(question, 'question')
    }
  } finally {
    stop()
    lifetime.dispose()
    lines.close()
  }
}

async function askForm(io: PromptIo, lines: TerminalLines, question: Extract<UserQuestion, { kind: 'form' }>): Promise<UserAnswer> {
  const shape = formFields(question.schema)
  const from = `the MCP server ${printable(question.source)}`
  if ('unsupported' in shape) {
    io.stderr.write(`dsh: ${from} asks: ${indented(question.message)}\n  dsh cannot ask this form on a terminal (${printable(shape.unsupported)}): declined.\n`)
    return { action: 'decline' }
  }
  io.stderr.write(`dsh: ${from} asks: ${indented(question.message)}\n  (an empty line takes the value in brackets; Ctrl-D cancels)\n`)
  const content: Record<string, JsonValue> = {}
  for (const field of shape.fields) {
    for (;;) {
      const line = await lines.next(`  ${fieldPrompt(field)}: `)
      if (line === undefined) return { action: 'cancel' }
      const answer = answerField(field, line)
      if (answer.ok) {
        if (answer.value !== undefined) content[field.name] = answer.value
        break
      }
      io.stderr.write(`  ${answer.why}\n`)
    }
  }
  const send = await lines.next(`  Send these answers to ${printable(question.source)}? [Y/n] `)
  if (send === undefined) return { action: 'cancel' }
  return /^\s*no?\s*$/i.test(send) ? { action: 'decline' } : { action: 'accept', content }
}

async function askVisit(io: PromptIo, lines: TerminalLines, question: Extract<UserQuestion, { kind: 'url' }>): Promise<UserAnswer> {
  const from = `the MCP server ${printable(question.source)}`
  const url = URL.canParse(question.url) ? new URL(question.url) : undefined
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    io.stderr.write(`dsh: ${from} asks you to open ${printable(question.url)}, which is not a web address: declined.\n`)
    return { action: 'decline' }
  }
  // Printed, never opened: the person sees the whole address and its host before going there.
  io.stderr.write(`dsh: ${from} asks you to open a web page: ${indented(question.message)}\n  ${printable(url.href)}\n  (host: ${printable(url.host)})\n`)
  const done = await lines.next('  Press Enter once you are done there, or type n to decline: ')
  if (done === undefined) return { action: 'cancel' }
  return /^\s*no?\s*$/i.test(done) ? { action: 'decline' } : { action: 'accept' }
}

function fieldPrompt(field: FormField): string {
  const label = printable(field.label) + (field.description ? ` (${printable(field.description)})` : '') + (field.required ? '' : ' (optional)')
  const fallback = field.default === undefined ? '' : ` [${printable(Array.isArray(field.default) ? field.default.join(',') : String(field.default))}]`
  switch (field.kind) {
    case 'text':
    case 'number':
      return `${label}${fallback}`
    case 'boolean':
      return `${label} [${field.default === true ? 'Y/n' : field.default === false ? 'y/N' : 'y/n'}]`
    case 'choice':
    case 'choices': {
      const list = field.choices.map((choice, at) => `${at + 1}) ${printable(choice.label)}`).join('  ')
      return `${label} — ${field.kind === 'choice' ? 'pick one' : 'pick any, comma-separated'}: ${list}${fallback}`
    }
    default:
      return assertNever(field, 'form field')
  }
}

/** A server's words on one line of our terminal: no control characters (terminal-text.ts), no line breaks. */
function printable(text: string): string {
  return terminalText(text).replace(/\n/g, ' ')
}

/** A multi-line message, each line indented under the first. */
function indented(text: string): string {
  return text
    .split('\n')
    .map((line) => printable(line))
    .join('\n  ')
}

/**
 * Lines typed on the terminal, one at a time, while one question is asked. Lines that arrive before
 * they are asked for (typed ahead, pasted) wait in order; `undefined` is the end of input.
 */
class TerminalLines {
  private readonly reader: Interface
  private readonly typed: string[] = []
  private waiting: ((line: string | undefined) => void) | undefined
  private ended = false
  private ending = false

  constructor(private readonly io: PromptIo) {
    // Loaded with the first prompt: most commands never ask.
    this.reader = process.getBuiltinModule('node:readline').createInterface({ input: io.stdin, terminal: false })
    this.reader.on('line', (line) => {
      if (this.waiting) this.take(line)
      else this.typed.push(line)
    })
    this.reader.once('close', () => {
      // The end of input leaves the cursor after the prompt: what dsh prints next starts a line.
      if (!this.ending) this.io.stderr.write('\n')
      this.ended = true
      this.take(undefined)
    })
  }

  next(prompt: string): Promise<string | undefined> {
    this.io.stderr.write(prompt)
    if (this.typed.length) return Promise.resolve(this.typed.shift())
    if (this.ended) return Promise.resolve(undefined)
    return new Promise((resolve) => (this.waiting = resolve))
  }

  close(): void {
    if (this.ended) return
    this.ending = true
    this.reader.close()
    // readline resumed stdin; leave it paused so it keeps nothing alive.
    this.io.stdin.pause()
  }

  private take(line: string | undefined): void {
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.(line)
  }
}
