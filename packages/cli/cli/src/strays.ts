import { describeStray, errorMessage, oneLine, type Host } from 'dsh-core'
import { ExitCode } from './exit.ts'
import { tellStderr } from './output.ts'

export type StrayKind = 'uncaught exception' | 'unhandled rejection'

/**
 * What becomes of a failure no plugin caught (an exception thrown from a timer, a rejected promise
 * nobody awaited). A one-shot command ends with one `dsh:` line and exit 70: its answer could not
 * be trusted. `dsh serve` contains them while it serves: each is logged with the row whose code
 * raised it and the server goes on, so one plugin's stray promise does not end every client's session.
 */
export class StrayFailures {
  private report: ((kind: StrayKind, error: unknown) => void) | undefined

  handle(kind: StrayKind | 'failure', error: unknown): void {
    if (kind !== 'failure' && this.report) {
      this.report(kind, error)
      return
    }
    tellStderr(process.stderr, `dsh: internal error (${kind} in a plugin): ${oneLine(errorMessage(error))} [INTERNAL_ERROR]`)
    process.exit(ExitCode.INTERNAL)
  }

  /** Until the returned function runs, failures are logged (naming the row) instead of ending the process. */
  contain(host: Host): () => void {
    const logger = host.app.logger('serve')
    const report = (kind: StrayKind, error: unknown) => logger.error(describeStray(kind, host.rows, error))
    this.report = report
    return () => {
      if (this.report === report) this.report = undefined
    }
  }
}
