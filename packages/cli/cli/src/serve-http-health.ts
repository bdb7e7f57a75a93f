import type { CapabilityReport, ReadinessService } from 'dsh-core'

/** How long one readiness report answers `/healthz`: a load balancer polling every second probes at most this often. */
const REPORT_REUSE_MS = 2000

export interface HealthBody {
  /** Every configured capability is `ready`. */
  readonly ready: boolean
  readonly capabilities: readonly Pick<CapabilityReport, 'surface' | 'id' | 'configured' | 'state' | 'detail'>[]
}

/**
 * `GET /healthz`: the composition's readiness as `dsh status` computes it (probing), 200 when every
 * configured capability is ready and 503 otherwise, with the rows as JSON. Concurrent requests share
 * one report, and a report is reused for a moment, so polling cannot pile probes onto the servers.
 */
export class Health {
  private latest: { readonly at: number; readonly body: Promise<HealthBody> } | undefined

  constructor(
    private readonly readiness: ReadinessService | undefined,
    private readonly cwd: string,
    private readonly signal: AbortSignal,
  ) {}

  async respond(request: Request): Promise<Response> {
    if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } })
    const body = await this.report()
    return Response.json(body, { status: body.ready ? 200 : 503, headers: { 'cache-control': 'no-store' } })
  }

  private report(): Promise<HealthBody> {
    const now = performance.now()
    if (this.latest && now - this.latest.at < REPORT_REUSE_MS) return this.latest.body
    const body = this.probe()
    this.latest = { at: now, body }
    return body
  }

  private async probe(): Promise<HealthBody> {
    if (!this.readiness) return { ready: false, capabilities: [{ surface: 'core', id: 'readiness', configured: false, state: 'unavailable', detail: 'this preset mounts no dsh-core/readiness row' }] }
    const rows = await this.readiness.report({ probe: true, signal: this.signal, cwd: this.cwd })
    const capabilities = rows.map(({ surface, id, configured, state, detail }) => ({ surface, id, configured, state, detail }))
    return { ready: capabilities.every((row) => !row.configured || row.state === 'ready'), capabilities }
  }
}
