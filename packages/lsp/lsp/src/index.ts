import { LspService } from './service.ts'

export default LspService
export { LspService }
export { LspError, LspErrorCode } from './errors.ts'
export { finalExtension, normalizeExtensionKey } from './extensions.ts'
export * from './types.ts'
export * from './capabilities.ts'
