const SECRET_NAME = /KEY|PASSWORD|SECRET|TOKEN/i

/** True for a variable name that never reaches a child unless a spawn names it explicitly. */
export function isScrubbedName(name: string): boolean {
  return SECRET_NAME.test(name) || name.toUpperCase().startsWith('DSH_')
}

/**
 * The environment every child starts from: the parent's minus secret-looking names and `DSH_*`,
 * then `explicit` on top (a string sets, `undefined` removes). Only names are inspected, never values.
 */
export function scrubbedEnv(explicit: Readonly<Record<string, string | undefined>> = {}, parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined && !isScrubbedName(name)) env[name] = value
  }
  for (const [name, value] of Object.entries(explicit)) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  return env
}
