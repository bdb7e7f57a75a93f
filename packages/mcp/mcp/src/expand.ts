import { z } from 'zod'

/** `${NAME}` or `${NAME:-default}` (Claude Code's `.mcp.json` syntax). */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/**
 * `text` with every `${NAME}` replaced by the variable's value and every `${NAME:-default}` by the
 * value or, when it is unset or empty, the default. Returns the names that are unset and have no
 * default instead, when there are any.
 */
export function expandVariables(text: string, env: NodeJS.ProcessEnv = process.env): { value: string } | { missing: string[] } {
  const missing: string[] = []
  const value = text.replace(REFERENCE, (_whole, name: string, fallback: string | undefined) => {
    const found = env[name]
    if (found !== undefined && (found !== '' || fallback === undefined)) return found
    if (fallback !== undefined) return fallback
    missing.push(name)
    return ''
  })
  return missing.length ? { missing } : { value }
}

/** A config string in which `${NAME}` and `${NAME:-default}` are expanded from the environment when the row loads. */
export const expandedString = z.string().transform((text, context) => {
  const expanded = expandVariables(text)
  if ('value' in expanded) return expanded.value
  for (const name of expanded.missing) {
    context.addIssue({ code: 'custom', message: `\${${name}} is not set in the environment and has no default (\${${name}:-default} gives one)`, params: { unsetVariable: name } })
  }
  return z.NEVER
})
