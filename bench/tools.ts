import { Context } from 'cordis'
import { SessionService, ToolRuntime, untracked } from 'dsh-core'
import { z } from 'zod'

// The fixed cost of the tools runtime: a tool whose body does nothing, called through
// ctx.tools.execute (as a harness holding the service through cordis, and through `untracked`),
// against calling the same body directly. Arguments shaped like an lsp call, a 60 s budget. One more
// side: the same tool with `approval: 'prompt'` and an approver that says yes at once (the gate's cost).

const CALLS = Number(process.env.BENCH_TOOLS_CALLS ?? 50_000)
const ARGS = { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 20 }

export async function benchTools(): Promise<string[]> {
  const app = new Context()
  app.plugin(ToolRuntime)
  app.plugin(SessionService)
  await app.start()
  const body = async () => ({ kind: 'hover', text: 'x'.repeat(200) })
  const input = z.strictObject({ operation: z.enum(['hover', 'goToDefinition']), filePath: z.string(), line: z.number().int(), character: z.number().int() })
  app.tools.register({ name: 'noop', description: 'does nothing', input, timeoutMs: 60_000, execute: body })
  app.tools.register({ name: 'noop_gated', description: 'does nothing once approved', input, timeoutMs: 60_000, approval: 'prompt', execute: body })
  app.tools.approver(() => ({ approved: true }))
  const session = app.sessions.create({ cwd: process.cwd() })
  const tracked = app.tools
  const plain = untracked(app.tools)
  const sides: Record<string, () => Promise<unknown>> = {
    'ctx.tools.execute (through cordis)': () => tracked.execute({ name: 'noop', arguments: ARGS, session }),
    'untracked(ctx.tools).execute': () => plain.execute({ name: 'noop', arguments: ARGS, session }),
    'untracked, approval: prompt (approved)': () => plain.execute({ name: 'noop_gated', arguments: ARGS, session }),
    'the body called directly': () => body(),
  }
  const perCall: Record<string, number> = {}
  for (const [label, call] of Object.entries(sides)) {
    for (let i = 0; i < 2000; i++) await call()
  }
  // Rounds alternate the sides so drift in machine load spreads over all three.
  const rounds = 10
  for (let round = 0; round < rounds; round++) {
    for (const [label, call] of Object.entries(sides)) {
      const start = process.hrtime.bigint()
      for (let i = 0; i < CALLS / rounds; i++) await call()
      perCall[label] = (perCall[label] ?? 0) + Number(process.hrtime.bigint() - start) / 1000
    }
  }
  await app.stop()
  const base = perCall['the body called directly']! / CALLS
  return [
    `a no-op tool with lsp-shaped arguments, ${CALLS} calls per side in ${rounds} alternating rounds`,
    ...Object.entries(perCall).map(([label, total]) => `${label.padEnd(38)} ${(total / CALLS).toFixed(1).padStart(7)} µs/call   (+${(total / CALLS - base).toFixed(1)} µs over the bare body)`),
  ]
}
