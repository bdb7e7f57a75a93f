// The MCP SDK's own minimal server of one no-op tool, the baseline of `pnpm bench serve-http`:
// `node bench/serve-sdk-minimal.mjs http` serves it as the SDK documents (createMcpHandler behind
// toNodeHandler on node:http, printing its URL on stderr); `... stdio` serves it on stdin/stdout.
import { createServer } from 'node:http'
import { createRequire } from 'node:module'

// The packages dsh serve itself uses, at the versions it pins.
const require = createRequire(new URL('../packages/cli/cli/package.json', import.meta.url))
const { createMcpHandler, Server } = await import(require.resolve('@modelcontextprotocol/server'))

const server = () => {
  const instance = new Server({ name: 'sdk-minimal', version: '0' }, { capabilities: { tools: {} } })
  instance.setRequestHandler('tools/call', async () => ({ content: [{ type: 'text', text: '{"ok":true}' }] }))
  return instance
}

if (process.argv[2] === 'stdio') {
  const { StdioServerTransport } = await import(require.resolve('@modelcontextprotocol/server/stdio'))
  await server().connect(new StdioServerTransport())
} else {
  const { toNodeHandler } = await import(require.resolve('@modelcontextprotocol/node'))
  const handle = toNodeHandler(createMcpHandler(server, { legacy: 'stateless' }))
  const http = createServer((request, response) => void handle(request, response))
  http.listen(0, '127.0.0.1', () => process.stderr.write(`listening on http://127.0.0.1:${http.address().port}/mcp\n`))
  process.on('SIGTERM', () => {
    http.close()
    http.closeAllConnections()
  })
}
