#!/usr/bin/env node
// The client under test for the MCP conformance runner's client scenarios: dsh, driven the way a
// user drives it. The runner starts this with the scenario server's URL as the last argument and
// the scenario's name in MCP_CONFORMANCE_SCENARIO (and its data in MCP_CONFORMANCE_CONTEXT).
//
//   1. an overlay row for the URL (the row a user writes, or `dsh mcp add --transport http`), with
//      the pre-registered client or the client-credentials grant when the scenario hands one out;
//   2. `dsh mcp login srv` when dsh reports the server needs a login, with a loopback browser
//      stand-in that follows the printed authorization URL (the authorization server redirects it
//      to dsh's callback);
//   3. `dsh tools --json` (after `dsh mcp login` again when it says the server wants a new login),
//      then `dsh call` of each tool the server lists (with the arguments the scenario's context
//      gives for it, else arguments made from its input schema), answering a server's question with --yes; when a call says a login is needed
//      (a step-up), `dsh mcp login` again and that call once more. A call the server answers with
//      an error is the server's answer; only a failure of dsh's own fails the run.
//
// dsh runs on this process's Node (the machine's); every step's output is echoed to stderr for the
// runner's stderr.txt. Exit 1 when a step fails.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)))
const DSH = join(REPO, 'packages/cli/cli/bin/dsh.mjs')
const url = process.argv.at(-1)
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? ''
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}')
const home = mkdtempSync(join(tmpdir(), 'dsh-conformance-'))
const overlay = join(home, 'server.yml')
const env = { ...process.env, DSH_HOME: home, NO_COLOR: '1' }
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json'

/** The `oauth:` of the row: what the scenario hands out (a pre-registered client, client credentials), else discovery. */
function oauthConfig() {
  if (context.client_id && context.client_secret && /client-credentials/.test(scenario)) {
    env.CONFORMANCE_CLIENT_SECRET = context.client_secret
    return { grant: 'client_credentials', clientId: context.client_id, clientSecretEnv: 'CONFORMANCE_CLIENT_SECRET' }
  }
  if (context.client_id && context.private_key_pem) {
    env.CONFORMANCE_PRIVATE_KEY = context.private_key_pem
    return { grant: 'client_credentials', clientId: context.client_id, privateKeyEnv: 'CONFORMANCE_PRIVATE_KEY', signingAlgorithm: context.signing_algorithm ?? 'ES256' }
  }
  if (context.client_id) {
    if (context.client_secret) env.CONFORMANCE_CLIENT_SECRET = context.client_secret
    return { clientId: context.client_id, ...(context.client_secret ? { clientSecretEnv: 'CONFORMANCE_CLIENT_SECRET' } : {}) }
  }
  // The client ID metadata document this client publishes (the suite's authorization servers
  // resolve this URL; a user names their own): used where the server supports them, else DCR.
  return { clientMetadataUrl: CLIENT_METADATA_URL }
}

function writeOverlay() {
  const config = { serverName: 'srv', transport: 'streamable-http', url, startupTimeoutMs: 20000, toolCallTimeoutMs: 20000 }
  const oauth = oauthConfig()
  if (oauth) config.oauth = oauth
  writeFileSync(overlay, `- id: conformance\n  name: dsh-mcp\n  config: ${JSON.stringify(config)}\n`)
}

/** Runs dsh; `onStderr` sees its stderr as it comes. Resolves with the exit code and the output. */
function dsh(args, onStderr) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [DSH, ...args, '--preset', 'base', '--config', overlay], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => {
      stderr += chunk
      onStderr?.(stderr)
    })
    child.on('close', (code) => {
      process.stderr.write(`$ dsh ${args.join(' ')}  → exit ${code}\n${stdout}${stderr}\n`)
      done({ code, stdout, stderr })
    })
  })
}

/** The browser: follows the authorization URL; the authorization server's redirect lands on dsh's callback. */
async function follow(authorizationUrl) {
  try {
    const response = await fetch(authorizationUrl, { redirect: 'follow' })
    await response.text()
  } catch (error) {
    process.stderr.write(`browser stand-in: ${error}\n`)
  }
}

async function login() {
  let followed = false
  return dsh(['mcp', 'login', 'srv'], (stderr) => {
    const found = /(https?:\/\/\S+\/authori[sz]e\?\S+)/m.exec(stderr)?.[1]
    if (found && !followed) {
      followed = true
      void follow(found)
    }
  })
}

/** Arguments from a tool's input schema: `a`/`b` numbers (the suite's adders), else a plain value per type. */
function argumentsFor(schema) {
  const args = {}
  const properties = schema?.properties ?? {}
  for (const name of schema?.required ?? Object.keys(properties)) {
    const type = properties[name]?.type
    if (name === 'a') args[name] = 2
    else if (name === 'b') args[name] = 3
    else if (properties[name]?.enum) args[name] = properties[name].enum[0]
    else args[name] = type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? true : type === 'object' ? {} : type === 'array' ? [] : 'test'
  }
  return args
}

/**
 * SEP-2640 client scenarios (issue 30): the catalog is read the way the model's first request reads
 * it (`skill` with "?" lists, loading nothing); for the verify-* scenarios the listed skill is then
 * loaded with the `skill` tool, and only a load that succeeds goes on to read a supporting file with
 * `mcp__srv__read_skill_file`, as a model following the skill would.
 */
async function skillScenario() {
  const listed = await dsh(['call', 'skill', '{"name":"?"}', '--json'])
  if (listed.code !== 0) return 1
  if (scenario === 'sep-2640-client-no-prefetch') return 0
  const names = (JSON.parse(listed.stdout).value?.groups ?? []).flatMap((group) => group.names)
  const name = names.find((candidate) => candidate.startsWith('srv-'))
  if (!name) return 1
  const loaded = await dsh(['call', 'skill', JSON.stringify({ name }), '--json', '--yes'])
  // Refused with a coded verification failure: the client did what the SEP asks.
  if (loaded.code !== 0) return /MCP_SKILL_(SIZE|DIGEST|FRONTMATTER)_MISMATCH/.test(loaded.stdout + loaded.stderr) ? 0 : 1
  const note = JSON.parse(loaded.stdout).value?.resourceBase?.description ?? ''
  const [, root, files = ''] = /Its files \(relative to (\S+)\): (.*?)\. Read one with/.exec(note) ?? []
  const file = files.split(', ').find((path) => path !== 'SKILL.md')
  if (!root || !file) return 0
  const read = await dsh(['call', 'mcp__srv__read_skill_file', JSON.stringify({ uri: `${root}/${file}` }), '--json', '--yes'])
  return read.code === 0 ? 0 : 1
}

async function main() {
  writeOverlay()
  if (scenario.startsWith('sep-2640-client-')) return skillScenario()
  const state = await dsh(['mcp', 'list', '--json'])
  const server = JSON.parse(state.stdout || '{"servers":[]}').servers?.[0]
  if (server?.state === 'needs_auth') {
    const loggedIn = await login()
    if (loggedIn.code !== 0) return 1
  }
  let tools = await dsh(['tools', '--json'])
  // The server stopped taking the login (its authorization server moved, SEP-2352): dsh says to log
  // in again, as a user would, then the tools are listed again.
  if (tools.code === 0 && /MCP server srv needs a login/.test(tools.stderr)) {
    if ((await login()).code !== 0) return 1
    tools = await dsh(['tools', '--json'])
  }
  if (tools.code !== 0) return 1
  const listed = JSON.parse(tools.stdout)
  const ours = (Array.isArray(listed) ? listed : (listed.tools ?? [])).filter((tool) => tool.name.startsWith('mcp__srv__'))
  // Every tool the server lists, as a user trying each would.
  let status = 0
  for (const tool of ours) {
    for (const args of argumentsToCall(tool)) if ((await callTool(tool, args)) !== 0) status = 1
  }
  return status
}

/**
 * The arguments a user would give the tool: the scenario's own when its context names calls of it
 * (`toolCalls`, as http-custom-headers gives non-ASCII, padded and null values), one call each; else
 * one call with arguments made from the schema.
 */
function argumentsToCall(tool) {
  const given = (context.toolCalls ?? []).filter((call) => `mcp__srv__${call.name}` === tool.name).map((call) => call.arguments ?? {})
  return given.length ? given : [argumentsFor(tool.parameters ?? tool.inputSchema)]
}

/** `dsh call` of one tool; 0 when the server answered it (its own error included), 1 when dsh failed. */
async function callTool(tool, args) {
  const call = () => dsh(['call', tool.name, JSON.stringify(args), '--json', '--yes'])
  let called = await call()
  // The server wants more (a 403 insufficient_scope): log in again, as dsh says, and call again.
  if (called.code !== 0 && /MCP_AUTH_REQUIRED/.test(called.stdout + called.stderr)) {
    if ((await login()).code !== 0) return 1
    called = await call()
  }
  if (called.code === 0) return 0
  // The server's answer to the call, an error result or a JSON-RPC error, is the server's to give.
  const code = (() => {
    try {
      return JSON.parse(called.stdout).error?.code
    } catch {
      return undefined
    }
  })()
  return code === 'MCP_TOOL_ERROR' || code === 'MCP_SERVER_ERROR' ? 0 : 1
}

try {
  process.exitCode = await main()
} finally {
  // Best effort: the scenario's verdict is the exit code, and a leftover directory is not a failure.
  try {
    rmSync(home, { recursive: true, force: true, maxRetries: 3 })
  } catch {}
}
