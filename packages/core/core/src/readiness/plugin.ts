import { ReadinessService } from './service.ts'

export default ReadinessService
