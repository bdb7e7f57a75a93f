import { fileURLToPath } from 'node:url'

/** An overlay that lets a language server's cold start take as long as a loaded machine needs (see the file). */
export const PATIENT_LSP_OVERLAY = fileURLToPath(new URL('./patient-lsp.yml', import.meta.url))
