import { AsyncLocalStorage } from 'node:async_hooks'
import type { Session } from './session.ts'

const storage = new AsyncLocalStorage<Session>()

/** The session whose tool call or pre-step is running, if any. */
export function currentSession(): Session | undefined {
  return storage.getStore()
}

export function runInSession<T>(session: Session | undefined, fn: () => T): T {
  return session ? storage.run(session, fn) : fn()
}
