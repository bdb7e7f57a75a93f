import { ToolRuntime } from './runtime.ts'

export default ToolRuntime
