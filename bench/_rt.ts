import { Context } from 'cordis'
import { z } from 'zod'
import { ToolRuntime, SessionService, untracked } from 'dsh-core'

const app = new Context()
app.plugin(ToolRuntime)
app.plugin(SessionService)
await app.start()
app.tools.register({ name: 'noop', description: 'noop', input: z.strictObject({ operation: z.enum(['hover','x']), filePath: z.string(), line: z.number().int(), character: z.number().int() }), execute: async () => ({ ok: true, text: 'x'.repeat(200) }), timeoutMs: 60000 })
const session = app.sessions.create({ cwd: '/tmp' })
const args = { operation: 'hover', filePath: 'src/main.ts', line: 4, character: 20 }
for (const [label, tools] of [['untracked', untracked(app.tools)]] as const) {
  for (let i = 0; i < 5000; i++) await tools.execute({ name: 'noop', arguments: args, session })
  const n = 100000
  const t = process.hrtime.bigint()
  for (let i = 0; i < n; i++) await tools.execute({ name: 'noop', arguments: args, session })
  console.log(label, Number(process.hrtime.bigint() - t) / n / 1000, 'µs/call')
}
await app.stop()
