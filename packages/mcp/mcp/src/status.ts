import type { CapabilityStatus } from 'dsh-core'
import type { Supervisor } from './supervisor.ts'

/**
 * The `dsh status` row of one server. The detail starts with the bridge's own state (connecting,
 * ready, reconnecting k/N, failed, stopped), then the tool count, and the last error with its
 * stderr tail (kept after a recovery, so the row tells what happened).
 */
export function serverStatus(supervisor: Supervisor, extra: readonly string[] = []): CapabilityStatus {
  const phase = supervisor.phase
  const tools = `${supervisor.tools.length} tool${supervisor.tools.length === 1 ? '' : 's'}`
  const parts = (...items: (string | undefined)[]) => [...items, ...extra].filter(Boolean).join('; ')
  switch (phase.kind) {
    case 'connecting':
      return { state: 'starting', detail: parts(supervisor.describePhase(), tools) }
    case 'ready': {
      const generation = supervisor.lastConnected
      const server = generation?.serverLabel()
      const identity = [server, generation?.pid ? `pid ${generation.pid}` : undefined].filter(Boolean).join(', ')
      const history = supervisor.reconnects ? `reconnected ${supervisor.reconnects} time${supervisor.reconnects === 1 ? '' : 's'}` : undefined
      const last = supervisor.lastError ? `last error ${ago(supervisor.lastError.at)}: ${supervisor.lastError.message}` : undefined
      if (supervisor.conflict) return { state: 'unavailable', detail: parts(`ready, but ${supervisor.conflict}`, identity, last) }
      return { state: 'ready', detail: parts(`ready: ${tools}`, identity, history, last) }
    }
    case 'reconnecting':
    case 'failed':
      return { state: 'crashed', detail: parts(supervisor.describePhase(), tools) }
    case 'stopped':
      return { state: 'unavailable', detail: parts(supervisor.describePhase(), tools) }
  }
}

function ago(at: number): string {
  const seconds = Math.max(0, Math.round((Date.now() - at) / 1000))
  return seconds < 120 ? `${seconds} s ago` : `${Math.round(seconds / 60)} min ago`
}
