/**
 * Workspace trust for tests (issue 26). Since the trust gates, what a workspace brings — its
 * TypeScript, its `.mcp.json` servers, its `.env`, its project skills — is used only in a trusted
 * directory. A test whose temp workspace relies on any of them trusts it explicitly:
 *
 * - a `dsh` child: `env: { DSH_HOME: await trustedHome(workspace) }` (a fresh home whose
 *   trusted.json trusts the directories), or `await trustIn(home, workspace)` for a home the test
 *   already made;
 * - an in-process host: `trustIn(process.env.DSH_HOME …)` the same way, or the harness hook
 *   `ctx.trust.decider(TRUST_EVERYTHING)` / `bootPreset({ askTrust: TRUST_EVERYTHING })`.
 */
import { mkdtemp, realpath } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TrustStore, trustStoreFile, type TrustHook } from '../packages/core/core/src/index.ts'

/** Records every directory as trusted in `home`'s trusted.json (made 0600 in a 0700 home). Returns `home`. */
export async function trustIn(home: string, ...directories: readonly string[]): Promise<string> {
  const store = new TrustStore(trustStoreFile({ DSH_HOME: home }))
  for (const directory of directories) await store.record(directory, true)
  return home
}

/** A new temp DSH_HOME whose trusted.json trusts `directories` (none: a home that trusts nothing). The caller removes it. */
export async function trustedHome(...directories: readonly string[]): Promise<string> {
  const home = await realpath(await mkdtemp(join(tmpdir(), 'dsh-trusted-home-')))
  return trustIn(home, ...directories)
}

/** A harness hook that trusts every workspace (in-process hosts of tests only). */
export const TRUST_EVERYTHING: TrustHook = () => true
