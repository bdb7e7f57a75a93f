import { WebService } from './service.ts'

export default WebService
export { WebService, WebConfig, type WebServiceOptions } from './service.ts'
export { httpFault, retryAfterMs, headerValue, type ProviderFault, type HeaderSource } from './fault.ts'
export { describeReport, type SearchProviderReport, type SearchProviderState } from './search-health.ts'
export { type SearchSelection, type SelectionSource } from './search-selection.ts'
export { WebError, WebErrorCode } from './errors.ts'
export * from './types.ts'
export { providerText, redact, stripBidi, sliceCodePoints, MAX_PROVIDER_TEXT } from './provider-text.ts'
export { collectSources, redactResult, type FoundSource } from './sources.ts'
export { optionalText } from './wire.ts'
