import { Context } from 'cordis'
import { ToolRuntime } from './src/tools/runtime.ts'
const app = new Context()
app.plugin(ToolRuntime, {})
await app.start()
const base = { description: 'echo', parameters: { type: 'object' }, render: (_a: any, v: any) => v.content[0].text, finalizeContent: () => undefined }
app.tools.register({ ...base, name: 'timed', timeoutMs: 60000, execute: async (args: any) => ({ content: [{ type: 'text', text: args.message }] }) } as any)
app.tools.register({ ...base, name: 'untimed', execute: async (args: any) => ({ content: [{ type: 'text', text: args.message }] }) } as any)
const { execute } = app.tools
const cpu: Record<string, number> = { timed: 0, untimed: 0 }
for (let round = 0; round < 40; round++) {
  for (const name of (round % 2 ? ['timed', 'untimed'] : ['untimed', 'timed'])) {
    const before = process.cpuUsage()
    for (let i = 0; i < 2000; i++) await execute({ name, arguments: { message: 'hi' } })
    const used = process.cpuUsage(before)
    if (round >= 5) cpu[name] += used.user + used.system
  }
}
const per = (n: number) => (n / (35 * 2000)).toFixed(2)
console.log(`CPU µs per call: timed ${per(cpu.timed)}, untimed ${per(cpu.untimed)}`)
await app.stop()
