import { join } from 'node:path'
import { dshHome } from 'dsh-core'

// Its own entry (`dsh-mcp/user-overlay`): `dsh` reads this path on every start, and the package
// entry would load the MCP SDK with it.

/** The user-level overlay `dsh mcp add` writes by default and `dsh` reads when it exists: `$DSH_HOME/mcp.yml`, else `~/.dsh/mcp.yml`. */
export function userMcpOverlay(env: NodeJS.ProcessEnv = process.env): string {
  return join(dshHome(env), 'mcp.yml')
}
