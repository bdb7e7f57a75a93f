import { LspService } from './service.ts'

export default LspService
export { LspService }
export { LspError, LspErrorCode } from './errors.ts'
export { finalExtension, normalizeExtensionKey } from './extensions.ts'
export * from './types.ts'
export * from './capabilities.ts'
export { PROVEN_TEXT_LIMITS, ProvenTextCache, settled, SETTLE_MS, unchanged, type ProvenTextLimits, type TextLookup } from './proven-texts.ts'
export { CallProofs, type ProvenStat } from './call-proofs.ts'
export { askedAtNote } from './asked-at.ts'
