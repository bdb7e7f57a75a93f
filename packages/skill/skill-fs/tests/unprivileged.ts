import { readFileSync } from 'node:fs'
import { dsh } from '../../../cli/cli/tests/helpers.ts'

/** Who runs a test's `dsh` so that file permissions apply: the test's own user, or `nobody` when the test runs as root. */
export type Unprivileged = { readonly user?: { uid: number; gid: number } } | { readonly skip: string }

/**
 * Permission bits do not stop root, so a test about unreadable files runs `dsh` as someone else:
 * as itself when it is not root, else as `nobody` (uid/gid from /etc/passwd). The reason to skip
 * is given only when that is impossible here (no such user, or it cannot run dsh from this checkout).
 */
export async function unprivileged(): Promise<Unprivileged> {
  if (process.getuid?.() !== 0) return {}
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === 'nobody')
  if (!entry) return { skip: 'the tests run as root and there is no user "nobody" to drop privileges to' }
  const user = { uid: Number(entry[2]), gid: Number(entry[3]) }
  const probe = await dsh(['--help'], { user })
  if (probe.code !== 0) return { skip: `the tests run as root and user "nobody" cannot run dsh from this checkout: ${probe.stderr.split('\n')[0]}` }
  return { user }
}
