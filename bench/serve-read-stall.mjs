// What a 16 MiB resources/read (SEP-2640's whole-skill limit) of `dsh serve` holds the event loop for:
// the longest stall while hashing it (ours: WebCrypto's digest, on the threadpool, as the SDK's
// skillEntry hashes; the baseline: node:crypto createHash of the whole buffer, as before), and the
// answer's other main-thread steps (decoding the text, base64 for a binary file, the JSON message).
//   node bench/serve-read-stall.mjs
import { createHash } from 'node:crypto'

const ROUNDS = 7
const text = new TextEncoder().encode('Step: do the thing carefully and read the file.\n'.repeat(((16 * 1024 * 1024) / 49) | 0))
const p50 = (samples) => [...samples].sort((a, b) => a - b)[samples.length >> 1]

/** The longest gap a 1 ms timer saw while `work` ran: how long the loop was held at once. */
async function stall(work) {
  let last = performance.now()
  let gap = 0
  const timer = setInterval(() => {
    const now = performance.now()
    gap = Math.max(gap, now - last)
    last = now
  }, 1)
  await new Promise((resolve) => setTimeout(resolve, 5))
  last = performance.now()
  gap = 0
  await work()
  gap = Math.max(gap, performance.now() - last)
  clearInterval(timer)
  return gap
}

function timed(work) {
  const start = performance.now()
  work()
  return performance.now() - start
}

const ours = []
const baseline = []
const idle = []
const steps = { decode: [], base64: [], json: [] }
for (let round = 0; round < ROUNDS; round++) {
  idle.push(await stall(() => new Promise((resolve) => setTimeout(resolve, 20))))
  ours.push(await stall(() => crypto.subtle.digest('SHA-256', text)))
  baseline.push(await stall(async () => createHash('sha256').update(text).digest('hex')))
  let decoded = ''
  steps.decode.push(timed(() => (decoded = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(text))))
  steps.base64.push(timed(() => Buffer.from(text).toString('base64')))
  steps.json.push(timed(() => JSON.stringify({ jsonrpc: '2.0', id: 1, result: { contents: [{ uri: 'skill://x/a.md', text: decoded }] } })))
}
const f = (value) => `${value.toFixed(1)} ms`
console.log(`hashing ${text.length} bytes, longest event-loop stall p50 of ${ROUNDS}: ours (WebCrypto) ${f(p50(ours))}, createHash whole ${f(p50(baseline))}, ratio ${(p50(ours) / p50(baseline)).toFixed(2)}x; an idle 20 ms wait ${f(p50(idle))} (the timer's floor)`)
console.log(`the answer's other main-thread steps, p50: fatal UTF-8 decode ${f(p50(steps.decode))}, base64 (a binary file) ${f(p50(steps.base64))}, JSON.stringify of the message ${f(p50(steps.json))}`)
