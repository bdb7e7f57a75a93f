import { Worker } from 'node:worker_threads'
import { HOST_PIPE_ARG } from './converter-spawn.ts'

/**
 * The watchdog's thread: it listens on the converter's stdin, a pipe whose other end only the host
 * holds and never writes to or closes. The kernel closes that end when the host goes, however it
 * goes (SIGKILL included), and the read sees its end: the watchdog then kills its own process,
 * which may be deep in a conversion that would never look up. Plain CommonJS, evaluated in the thread.
 */
const WATCHDOG = `
const { Socket } = require('node:net')
const hostGone = () => process.kill(process.pid, 'SIGKILL')
const host = new Socket({ fd: 0, readable: true, writable: false })
host.on('end', hostGone)
host.on('close', hostGone)
host.on('error', hostGone)
host.resume()
`

/**
 * Ends this converter process when its host is gone, even while its main thread is busy: Node has
 * no parent-death signal (Linux's PR_SET_PDEATHSIG), the IPC channel's close is heard only between
 * pages, and a host killed by SIGKILL kills nothing. A worker thread (its own event loop, not kept
 * alive by it: `unref`) watches stdin (see `WATCHDOG`). Started only when the host says stdin is
 * its pipe (`HOST_PIPE_ARG`, as the pool spawns converters): on another stdin its end could come at
 * once. The host says so rather than the converter asking: an `fstatSync(0)` on Node 20 made the
 * next `require` of linkedom's dependencies fail under tsx. Not on Windows, where a pipe cannot be
 * opened by descriptor. Returns the thread, or undefined when none was started.
 */
export function watchHost(): Worker | undefined {
  if (process.platform === 'win32' || !process.argv.includes(HOST_PIPE_ARG)) return undefined
  // No execArgv: the thread needs none of the converter's flags (its heap limit, tsx's hooks).
  const watchdog = new Worker(WATCHDOG, { eval: true, execArgv: [], stdout: false, stderr: false })
  // Its failure to start leaves a converter that works, as before the watchdog: say so and go on.
  watchdog.on('error', (error) => process.stderr.write(`dsh-tool-web converter: the host watchdog failed: ${error.message}\n`))
  watchdog.unref()
  return watchdog
}
