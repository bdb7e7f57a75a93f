import { WebError } from 'dsh-web'
import { expect } from 'vitest'

/** The WebError a promise rejects with; the test fails if it resolves or rejects with anything else. */
export async function rejection(promise: Promise<unknown>): Promise<WebError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(WebError)
  return error as WebError
}
