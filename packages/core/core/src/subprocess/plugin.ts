import { SubprocessService } from './service.ts'

export default SubprocessService
