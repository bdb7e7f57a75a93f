import type { DecideOptions, TrustDecider, TrustDecision } from 'dsh-core'
import type { Launch } from './launch.ts'

/**
 * A launch's `revoked`: whether the trusted decision it was made under no longer stands, decided
 * again from the records (nobody asked) after trusted.json changed. Only the user's recorded word
 * takes it back: `dsh trust --revoke` (of the directory, a directory below it, or an ancestor), or
 * the record it was trusted by gone. A dialog's session-only yes, with nothing recorded, stays.
 */
export function revokedCheck(trust: TrustDecider, directory: string, options: DecideOptions, decision: TrustDecision, inner?: Launch['revoked']): NonNullable<Launch['revoked']> {
  const { signal: _asked, ...again } = options
  return async () => {
    if (await inner?.()) return true
    const now = await trust.decide(directory, { ...again, ask: false })
    return !now.trusted && (now.by === 'record' || decision.by === 'record')
  }
}
