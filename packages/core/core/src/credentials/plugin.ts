import { CredentialService } from './service.ts'

export default CredentialService
