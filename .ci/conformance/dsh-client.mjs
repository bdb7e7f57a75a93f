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
//   3. `dsh tools --json`, then `dsh call` of the scenario's tool (the first one the server lists,
//      with arguments made from its input schema), answering a server's question with --yes; when
//      the call says a login is needed (a step-up), `dsh mcp login` again and the call once more.
//
// dsh runs on this process's Node (the machine's); every step's output is echoed to stderr for the
// runner's stderr.txt. Exit 1 when a step fails.
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
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

async function main() {
  writeOverlay()
  const state = await dsh(['mcp', 'list', '--json'])
  const server = JSON.parse(state.stdout || '{"servers":[]}').servers?.[0]
  if (server?.state === 'needs_auth') {
    const loggedIn = await login()
    if (loggedIn.code !== 0) return 1
  }
  const tools = await dsh(['tools', '--json'])
  if (tools.code !== 0) return 1
  const listed = JSON.parse(tools.stdout)
  const ours = (Array.isArray(listed) ? listed : (listed.tools ?? [])).filter((tool) => tool.name.startsWith('mcp__srv__'))
  if (!ours.length) return 0
  const tool = ours[0]
  const call = () => dsh(['call', tool.name, JSON.stringify(argumentsFor(tool.parameters ?? tool.inputSchema)), '--json', '--yes'])
  let called = await call()
  // The server wants more (a 403 insufficient_scope): log in again, as dsh says, and call again.
  if (called.code !== 0 && /MCP_AUTH_REQUIRED/.test(called.stdout + called.stderr)) {
    if ((await login()).code !== 0) return 1
    called = await call()
  }
  return called.code === 0 ? 0 : 1
}

process.exitCode = await main()
