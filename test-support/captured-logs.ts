import { Logger } from 'cordis'
import { afterEach, beforeEach } from 'vitest'

/** What cordis loggers print during each test of the calling file (emptied before each test). */
export function capturedLogs(): string[] {
  const lines: string[] = []
  const target = { colors: 0, print: (text: string) => void lines.push(text) }
  beforeEach(() => {
    lines.length = 0
    Logger.targets.push(target)
  })
  afterEach(() => {
    Logger.targets.splice(Logger.targets.indexOf(target), 1)
  })
  return lines
}
