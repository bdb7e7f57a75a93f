import { PassThrough } from 'node:stream'
import { ReadableStreamMessageReader, StreamMessageReader } from 'vscode-jsonrpc/node'
import { FrameGuard } from '../packages/lsp/lsp-stdio/src/frame-guard.ts'
import { percentile, ratio } from './stats.ts'

// The cost of the frame guard dsh-lsp-stdio puts in front of vscode-jsonrpc (maxMessageBytes, bounded
// header blocks): server output goes through FrameGuard (the reader's stream) → ReadableStreamMessageReader,
// against the bare StreamMessageReader reading the same bytes, in 64 KiB chunks as a pipe delivers them.

const CHUNK = 65_536
const ROUNDS = Number(process.env.BENCH_FRAMING_ROUNDS ?? 15)

const SIZES: { name: string; bodyBytes: number; messages: number }[] = [
  { name: 'hover answer, 300 B', bodyBytes: 300, messages: 20_000 },
  { name: 'references, 20 KB', bodyBytes: 20_000, messages: 2_000 },
  { name: 'large answer, 1 MB', bodyBytes: 1_000_000, messages: 40 },
]

function stream(bodyBytes: number, messages: number): Buffer[] {
  const head = '{"jsonrpc":"2.0","id":1,"result":{"contents":"'
  const body = `${head}${'x'.repeat(Math.max(0, bodyBytes - head.length - 3))}"}}`
  const frame = Buffer.from(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  const all = Buffer.concat(Array.from({ length: messages }, () => frame))
  const chunks: Buffer[] = []
  for (let offset = 0; offset < all.length; offset += CHUNK) chunks.push(all.subarray(offset, offset + CHUNK))
  return chunks
}

/** Microseconds per message to read every message of `chunks`. */
async function read(chunks: readonly Buffer[], messages: number, guarded: boolean): Promise<number> {
  const source = new PassThrough({ highWaterMark: CHUNK })
  const reader = guarded ? new ReadableStreamMessageReader(new FrameGuard(source, 'bench', 16_000_000)) : new StreamMessageReader(source)
  let received = 0
  const done = new Promise<void>((resolve, reject) => {
    reader.onError(reject)
    reader.listen(() => {
      if (++received === messages) resolve()
    })
  })
  const start = process.hrtime.bigint()
  for (const chunk of chunks) {
    if (!source.write(chunk)) await new Promise((resolve) => source.once('drain', resolve))
  }
  await done
  const micros = Number(process.hrtime.bigint() - start) / 1e3 / messages
  reader.dispose()
  source.destroy()
  return micros
}

export async function benchLspFraming(): Promise<string[]> {
  const lines = [`reading server output, µs per message (median of ${ROUNDS} interleaved rounds; ours: FrameGuard → ReadableStreamMessageReader, bare: StreamMessageReader)`]
  lines.push('message                      ours        bare     ratio')
  for (const size of SIZES) {
    const chunks = stream(size.bodyBytes, size.messages)
    const ours: number[] = []
    const bare: number[] = []
    await read(chunks, size.messages, true)
    await read(chunks, size.messages, false)
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2) {
        ours.push(await read(chunks, size.messages, true))
        bare.push(await read(chunks, size.messages, false))
      } else {
        bare.push(await read(chunks, size.messages, false))
        ours.push(await read(chunks, size.messages, true))
      }
    }
    const [o, b] = [percentile(ours, 50), percentile(bare, 50)]
    lines.push(`${size.name.padEnd(24)} ${o.toFixed(1).padStart(8)}  ${b.toFixed(1).padStart(10)}  ${ratio(o, b).padStart(8)}`)
  }
  return lines
}
