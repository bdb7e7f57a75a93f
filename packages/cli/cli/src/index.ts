export { main, run, type Io } from './main.ts'
export { parseInvocation, presetPath, USAGE, UsageError, type Command, type Invocation } from './args.ts'
