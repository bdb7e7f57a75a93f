import { assertNever, type CapabilityStatus } from 'dsh-core'
import { describeRefused, describeRenamed } from './discovery.ts'
import type { ServerExtras } from './extras.ts'
import type { Supervisor, SupervisorView } from './supervisor.ts'

/** How many refused (renamed, cut) tools a status line names before it only counts. */
const REFUSED_SHOWN = 5

/**
 * The `dsh status` row of one server. The detail starts with the bridge's own state (connecting,
 * ready, reconnecting k/N, failed, unavailable, stopped), then the tool count (the same tools the
 * row's tools column lists), the tools the server listed but the bridge refused, and the last error
 * with the server's stderr tail (kept after a recovery, so the row tells what happened).
 */
export function serverStatus(supervisor: Supervisor, extras: Pick<ServerExtras, 'reserved' | 'statusLines'>): CapabilityStatus {
  const { phase, reconnects, lastError, conflict, refused: refusedTools } = supervisor.view
  const count = supervisor.tools.length + extras.reserved.size
  const tools = `${count} tool${count === 1 ? '' : 's'}`
  const refused = refusedLine(refusedTools)
  const cut = cutLine(supervisor.view.cutDescriptions, supervisor.config.maxDescriptionChars)
  const { renamed: renamedTools } = supervisor.view
  const renamed = renamedTools.length ? renamedTools.slice(0, REFUSED_SHOWN).map(describeRenamed).join('; ') + (renamedTools.length > REFUSED_SHOWN ? `; and ${renamedTools.length - REFUSED_SHOWN} more renamed` : '') : undefined
  const parts = (...items: (string | undefined)[]) => [...items, refused, renamed, cut, ...extras.statusLines()].filter(Boolean).join('; ')
  // What put the server in a failing state, coded (`dsh mcp list --json`; the text shows the code once).
  const failure = lastError ? { failure: { code: lastError.code, message: lastError.message } } : {}
  switch (phase.kind) {
    case 'connecting':
      // A retry (attempt k ≥ 1) is connecting because the attempt before it failed: that failure is
      // why the row is not ready, as for a crashed row between attempts, so it keeps its code.
      return { state: 'starting', detail: parts(supervisor.describePhase(), tools), ...(phase.attempt ? failure : {}) }
    case 'ready': {
      const generation = supervisor.lastConnected
      const server = generation?.serverLabel()
      const protocol = generation?.protocolVersion ? `protocol ${generation.protocolVersion}` : undefined
      const identity = [server, protocol, generation?.pid ? `pid ${generation.pid}` : undefined].filter(Boolean).join(', ')
      const history = reconnects ? `reconnected ${reconnects} time${reconnects === 1 ? '' : 's'}` : undefined
      const last = lastError ? `last error ${ago(lastError.at)}: ${lastError.detail}` : undefined
      if (conflict) return { state: 'unavailable', detail: parts(`ready, but ${conflict}`, identity, last), failure: { code: 'MCP_NAME_CONFLICT', message: conflict } }
      return { state: 'ready', detail: parts(`ready: ${tools}`, identity, history, last) }
    }
    case 'reconnecting':
    case 'failed':
      return { state: 'crashed', detail: parts(supervisor.describePhase(), tools), ...failure }
    case 'needs_auth':
      return { state: 'needs_auth', detail: parts(supervisor.describePhase(), tools), ...failure }
    case 'unavailable':
    case 'stopped':
      return { state: 'unavailable', detail: parts(supervisor.describePhase(), tools), ...failure }
    default:
      return assertNever(phase, 'supervisor phase')
  }
}

function refusedLine(refused: SupervisorView['refused']): string | undefined {
  if (!refused.length) return undefined
  const named = refused.slice(0, REFUSED_SHOWN).map(describeRefused).join('; ')
  const more = refused.length > REFUSED_SHOWN ? `; and ${refused.length - REFUSED_SHOWN} more` : ''
  return `${refused.length} tool${refused.length === 1 ? '' : 's'} refused (MCP_MALFORMED_RESPONSE): ${named}${more}`
}

function cutLine(cut: SupervisorView['cutDescriptions'], max: number): string | undefined {
  if (!cut.length) return undefined
  const named = cut.slice(0, REFUSED_SHOWN).map((tool) => `${JSON.stringify(tool.rawName)} (${tool.chars} characters)`).join(', ')
  const more = cut.length > REFUSED_SHOWN ? ` and ${cut.length - REFUSED_SHOWN} more` : ''
  return `${cut.length} tool description${cut.length === 1 ? '' : 's'} cut at maxDescriptionChars ${max}: ${named}${more}`
}

function ago(at: number): string {
  const seconds = Math.max(0, Math.round((Date.now() - at) / 1000))
  return seconds < 120 ? `${seconds} s ago` : `${Math.round(seconds / 60)} min ago`
}
