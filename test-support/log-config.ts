import { Logger } from 'cordis'

// cordis keeps its log targets and levels process-wide, and `main` sets them for its command. Every
// command run in this worker holds them while it runs; the last to end puts back what was there
// before the first began, so overlapping runs (a serve open while a command runs) keep each other's.

let holders = 0
let saved: { readonly targets: Logger.Target[]; readonly levels: Logger.LevelConfig } | undefined

/** Holds cordis's log configuration for one run; the returned release puts it back once no run holds it. */
export function holdLogConfig(): () => void {
  if (holders++ === 0) saved = { targets: [...Logger.targets], levels: { ...Logger.levels } }
  let released = false
  return () => {
    if (released) return
    released = true
    if (--holders === 0 && saved) {
      Logger.targets.splice(0, Logger.targets.length, ...saved.targets)
      Object.assign(Logger.levels, saved.levels)
      saved = undefined
    }
  }
}
