import { WebService } from './service.ts'

export default WebService
export { WebService, WebConfig } from './service.ts'
export { WebError, WebErrorCode } from './errors.ts'
export * from './types.ts'
export { providerText, sliceCodePoints, MAX_PROVIDER_TEXT } from './provider-text.ts'
