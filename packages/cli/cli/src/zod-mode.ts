import { z } from 'zod'
import { parseInvocation } from './args.ts'

/**
 * A one-shot `dsh` process parses each schema about once (the preset's configs, one call's
 * arguments), and zod compiles a parser for each object schema on its first parse, which costs
 * more than it saves there (about a seventh of the boot's CPU). `dsh serve` parses the same
 * arguments for as long as it serves, so it keeps the compiled parsers. Validation is the same
 * either way. zod keeps this setting per process, shared by every copy. The command is read as
 * `main` reads it, so an argument that happens to be the word `serve` (`dsh call echo serve`) is
 * not taken for the command; a command line `main` refuses changes nothing that matters.
 */
export function configureZodFor(argv: readonly string[]): void {
  if (commandKind(argv) !== 'serve') z.config({ jitless: true })
}

function commandKind(argv: readonly string[]): string | undefined {
  try {
    return parseInvocation(argv).command.kind
  } catch {
    return undefined
  }
}
