import { SessionService } from './service.ts'

export default SessionService
