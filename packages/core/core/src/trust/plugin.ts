import { TrustService } from './service.ts'

export default TrustService
