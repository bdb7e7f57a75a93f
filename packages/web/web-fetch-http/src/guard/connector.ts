import { isIP, type Socket } from 'node:net'
import type { buildConnector } from 'undici'
import { unbracket, type NetworkGuard } from './guard.ts'

export type Connector = buildConnector.connector
export type BaseConnectorOptions = buildConnector.BuildOptions

/**
 * undici's connector behind the guard. An address literal is checked before anything is opened;
 * a name is resolved by the guard's `lookup`, so the socket connects only to answers it checked
 * (Host and TLS SNI keep the name). Once connected, the peer address is checked again.
 * `base` is replaceable only so a test can make a socket land somewhere its lookup did not say.
 * `build` is undici's `buildConnector`, passed in by the caller that loaded undici on first use.
 */
export function guardedConnector(build: typeof buildConnector, guard: NetworkGuard, options: BaseConnectorOptions = {}, base?: Connector): Connector {
  const connect = base ?? build({ ...options, lookup: guard.lookupFunction() } as BaseConnectorOptions)
  return (target, callback) => {
    const host = target.hostname
    try {
      // Throws for a refused literal; a name is checked inside lookup.
      if (isLiteral(host)) guard.checkAddress(unbracket(host), host, 'is')
    } catch (error) {
      callback(error as Error, null)
      return
    }
    connect(target, (error, socket) => {
      if (error || !socket) {
        callback(error ?? new Error('connect failed'), null)
        return
      }
      try {
        guard.checkAddress((socket as Socket).remoteAddress ?? '', host, 'connected to')
      } catch (refusal) {
        socket.destroy()
        callback(refusal as Error, null)
        return
      }
      callback(null, socket)
    })
  }
}

function isLiteral(host: string): boolean {
  return isIP(unbracket(host)) !== 0
}
