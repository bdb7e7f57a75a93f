import { FileSystem } from './service.ts'

export default FileSystem
