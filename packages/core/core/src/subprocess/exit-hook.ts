/**
 * The process 'exit' listener of every `SubprocessService` in the process: one, shared. A process
 * may hold many hosts (a test file's rigs, `dsh serve` sessions in one worker), and a listener per
 * service made the eleventh a MaxListenersExceededWarning. Added with the first service, removed
 * with the last.
 */
const killers = new Set<() => void>()

function killAll(): void {
  for (const kill of killers) kill()
}

/** Runs `kill` (synchronously) if the process exits; returns the release, which is idempotent. */
export function killOnProcessExit(kill: () => void): () => void {
  const own = () => kill()
  if (killers.size === 0) process.on('exit', killAll)
  killers.add(own)
  return () => {
    if (!killers.delete(own) || killers.size > 0) return
    process.off('exit', killAll)
  }
}
