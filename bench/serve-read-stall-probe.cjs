// Preloaded into `dsh serve` by bench/serve-read-stall-dsh.mjs (NODE_OPTIONS=--require): a 1 ms
// timer records the longest gap between its ticks, the longest the main thread was held at once.
// SIGUSR2 writes `stall <ms>` to stderr and starts a new window.
let last = performance.now()
let gap = 0
setInterval(() => {
  const now = performance.now()
  gap = Math.max(gap, now - last)
  last = now
}, 1).unref()
process.on('SIGUSR2', () => {
  const now = performance.now()
  process.stderr.write(`stall ${Math.max(gap, now - last).toFixed(1)}\n`)
  gap = 0
  last = now
})
