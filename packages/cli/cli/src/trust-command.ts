import { resolve } from 'node:path'
import { TrustStore, trustCommand, type TrustRecord } from 'dsh-core'
import { checkWorkspace, commandLineError, invocationDir, UsageError } from './args.ts'
import { ExitCode } from './exit.ts'
import { failureLine, outputFailure, tellStderr, writeOut } from './output.ts'
import { rowCell } from './terminal-text.ts'

export const TRUST_USAGE = `usage: dsh trust [<dir>] | --revoke [<dir>] | --list [--json]
  dsh trust [<dir>]           trust the directory (default --cwd, else the current one) and what is below it:
                              its TypeScript, its .mcp.json servers, its .env and its skills are then used
  dsh trust --revoke [<dir>]  record it as untrusted (also below a trusted directory)
  dsh trust --list            the recorded decisions
decisions are kept in $DSH_HOME/trusted.json (default ~/.dsh/trusted.json)`

interface TrustIo {
  readonly stdout: NodeJS.WritableStream
  readonly stderr: NodeJS.WritableStream
}

/** `dsh trust …`: records or lists decisions without booting a composition. */
export async function runTrustCommand(argv: readonly string[], io: TrustIo, given?: TrustStore): Promise<ExitCode> {
  try {
    // Made inside: without a home (HOME_UNKNOWN) its file has no place, which is this command's one line.
    const store = given ?? new TrustStore()
    // Not an import of node:util: on Node 22 that loads worker_threads at start (lazy-load.test.ts).
    const { values, positionals } = process.getBuiltinModule('node:util').parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { revoke: { type: 'boolean' }, list: { type: 'boolean' }, json: { type: 'boolean' }, cwd: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    })
    if (values.help) return await say(io, `${TRUST_USAGE}\n`)
    if (positionals.length > 1) throw new UsageError(`trust takes one directory (got ${positionals.join(' ')})`)
    if (values.list) {
      if (values.revoke || positionals.length) throw new UsageError('--list takes no directory and no --revoke')
      const records = await store.list()
      const problem = await store.problem()
      if (problem) tellStderr(io.stderr, `dsh: ${store.file} decides nothing: ${problem}`)
      return await say(io, values.json ? `${JSON.stringify({ file: store.file, directories: records })}\n` : `${listText(records, store.file)}\n`)
    }
    // `dsh trust "$REPO"` with REPO unset would trust the current directory (a home: every repository below it).
    if (positionals[0] === '' || values.cwd === '') throw new UsageError('an empty directory name: give the directory (or none, for the current one)')
    const from = invocationDir()
    const directory = resolve(from, values.cwd ?? '.', positionals[0] ?? '.')
    checkWorkspace(directory)
    const record = await store.record(directory, !values.revoke)
    const text = record.trusted
      ? `trusted ${record.directory}: its TypeScript, .mcp.json servers, .env and skills are used from now on (recorded in ${store.file})`
      : `untrusted ${record.directory}: what it brings is not used (recorded in ${store.file}; ${trustCommand(record.directory)} trusts it again)`
    return await say(io, values.json ? `${JSON.stringify({ file: store.file, ...record })}\n` : `${rowCell(text)}\n`)
  } catch (error) {
    const lost = outputFailure(error, io.stderr)
    if (lost !== undefined) return lost
    tellStderr(io.stderr, failureLine(commandLineError(error), { help: 'dsh trust --help', uncoded: 'TRUST_COMMAND_FAILED' }))
    return ExitCode.USAGE
  }
}

function listText(records: readonly TrustRecord[], file: string): string {
  if (!records.length) return `no directory is trusted (${file} records none)`
  const width = Math.max(...records.map((record) => (record.trusted ? 7 : 9)))
  return records.map((record) => `${(record.trusted ? 'trusted' : 'untrusted').padEnd(width)}  ${rowCell(record.directory)}  ${rowCell(record.decidedAt)}`).join('\n')
}

async function say(io: TrustIo, text: string): Promise<ExitCode> {
  await writeOut(io.stdout, text)
  return ExitCode.OK
}
