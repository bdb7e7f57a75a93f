import type { Readable } from 'node:stream'

/**
 * `Content-Encoding: deflate` is zlib-wrapped deflate (RFC 9110), but some servers (old IIS among
 * them) send raw deflate under it, and browsers read both: a zlib stream starts with a header whose
 * first byte names method 8 with a window of at most 32 KiB and whose first two bytes, read as one
 * big-endian number, are a multiple of 31 (RFC 1950). With one byte only, the first test decides.
 */
export function isZlibHeader(first: Uint8Array): boolean {
  const cmf = first[0]
  if (cmf === undefined || (cmf & 0x0f) !== 8 || cmf >> 4 > 7) return false
  const flg = first[1]
  return flg === undefined || ((cmf << 8) | flg) % 31 === 0
}

/**
 * The body's first chunk, taken and put back (`unshift`), so that the stream still holds every
 * byte: null when the body is empty. Rejects as the body fails or closes before its end (an abort,
 * a cut connection). The body is paused after it; piping it resumes it.
 */
export function peekFirstChunk(body: Readable): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const settle = () => {
      body.off('data', onData)
      body.off('end', onEnd)
      body.off('error', onError)
      body.off('close', onClose)
    }
    const onData = (chunk: Buffer) => {
      body.pause()
      settle()
      body.unshift(chunk)
      resolve(chunk)
    }
    const onEnd = () => {
      settle()
      resolve(null)
    }
    const onError = (error: Error) => {
      settle()
      reject(error)
    }
    const onClose = () => {
      settle()
      reject(body.errored ?? new Error('the response body closed before its end'))
    }
    if (body.destroyed) return reject(body.errored ?? new Error('the response body closed before it was read'))
    body.on('data', onData)
    body.once('end', onEnd)
    body.once('error', onError)
    body.once('close', onClose)
  })
}
