// Copied into the pack check's install and run there: starts each MCP client entry of the README
// as a client does (stdio, the SDK v2 client the check installs beside the tarballs) and lists its
// tools. argv[2]: JSON [{ where, command, args }].
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'

const expected = ['lsp', 'skill', 'web_fetch', 'web_search']
for (const entry of JSON.parse(process.argv[2])) {
  const client = new Client({ name: 'dsh-pack-check', version: '0.0.0' })
  await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, stderr: 'ignore' }))
  try {
    const names = (await client.listTools()).tools.map((tool) => tool.name)
    const missing = expected.filter((name) => !names.includes(name))
    if (missing.length) throw new Error(`${entry.where}: ${entry.command} ${entry.args.join(' ')} offers ${names.join(', ')}, not ${missing.join(', ')}`)
    console.log(`${entry.where}: ${entry.command} ${entry.args.join(' ')} → ${names.join(', ')}`)
  } finally {
    await client.close()
  }
}
