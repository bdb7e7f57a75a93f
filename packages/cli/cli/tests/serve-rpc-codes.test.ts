// The JSON-RPC error codes `dsh serve` answers with are its clients' way to route (a busy server is
// tried again, a stopping one is not): each must mean only what dsh says, so none may be a number
// the MCP SDKs or the 2026-07-28 spec give a meaning of their own. The reserved numbers are read
// from the SDK packages dsh uses (v2) and the one its clients may still run (v1), not copied here.
import { ErrorCode as V1ErrorCode } from '@modelcontextprotocol/sdk/types.js'
import { ProtocolErrorCode } from '@modelcontextprotocol/server'
import { describe, expect, it } from 'vitest'
import { RpcCode } from '../src/serve-rpc.ts'

/** JSON-RPC 2.0's own codes, which dsh uses for what they mean. */
const STANDARD = new Set([-32700, -32600, -32601, -32602, -32603])

/**
 * Numbers with a meaning elsewhere: the v1 SDK's own errors (-32000 "Connection closed", -32001
 * "Request timed out": a v1 client cannot tell an answer with them from its own failure), every
 * v2 protocol code (-32002 resource not found, still accepted from older peers, and 2026-07-28's
 * -32020…-32022, -32042), and the "Session not found" both SDKs' HTTP servers answer (-32001).
 */
function reserved(): Map<number, string> {
  const taken = new Map<number, string>()
  const add = (code: number, meaning: string) => taken.set(code, taken.has(code) ? `${taken.get(code)}, ${meaning}` : meaning)
  for (const [name, code] of Object.entries(V1ErrorCode)) if (typeof code === 'number') add(code, `v1 SDK ${name}`)
  for (const [name, code] of Object.entries(ProtocolErrorCode)) if (typeof code === 'number') add(code, `v2 SDK ${name}`)
  add(-32001, "Session not found (both SDKs' HTTP servers)")
  return taken
}

describe('dsh serve JSON-RPC error codes', () => {
  it('each is JSON-RPC\'s own, or an implementation-defined one (-32000…-32019, the 2026-07-28 spec keeps -32020…-32099 for MCP) that no SDK or spec number shares', () => {
    const taken = reserved()
    for (const [name, code] of Object.entries(RpcCode)) {
      if (STANDARD.has(code)) continue
      expect(code <= -32000 && code >= -32019, `${name} ${code} is outside the implementation-defined range`).toBe(true)
      expect(taken.get(code), `${name} ${code}`).toBeUndefined()
    }
  })

  it('the codes are distinct', () => {
    const codes = Object.values(RpcCode)
    expect(new Set(codes).size).toBe(codes.length)
  })
})
