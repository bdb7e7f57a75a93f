// A small stdio MCP server (SDK McpServer) whose `exit` tool ends the process without answering.
// Used by overlay.yml and demo.ts to show the bridge's supervision. If CRASH_DEMO_PID_FILE is set,
// each server process appends its pid to that file (so a test can check that none survives).
import { appendFileSync } from 'node:fs'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

if (process.env.CRASH_DEMO_PID_FILE) appendFileSync(process.env.CRASH_DEMO_PID_FILE, `${process.pid}\n`)

const server = new McpServer({ name: 'crash-demo', version: '1.0.0' })
server.registerTool('echo', { description: 'Echoes the message back.', inputSchema: { message: z.string() } }, async ({ message }) => ({
  content: [{ type: 'text', text: `echo from pid ${process.pid}: ${message}` }],
}))
server.registerTool('exit', { description: 'Ends the server process at once (to try the supervision).' }, async () => {
  process.stderr.write(`crash-demo ${process.pid}: exiting on request\n`)
  process.exit(1)
})
await server.connect(new StdioServerTransport())
