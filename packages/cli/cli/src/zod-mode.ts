import { z } from 'zod'

/**
 * A one-shot `dsh` process parses each schema about once (the preset's configs, one call's
 * arguments), and zod compiles a parser for each object schema on its first parse, which costs
 * more than it saves there (about a seventh of the boot's CPU). `dsh serve` parses the same
 * arguments for as long as it serves, so it keeps the compiled parsers. Validation is the same
 * either way. zod keeps this setting per process, shared by every copy.
 */
export function configureZodFor(argv: readonly string[]): void {
  if (!argv.includes('serve')) z.config({ jitless: true })
}
