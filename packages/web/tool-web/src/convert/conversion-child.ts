import { serveConversions } from './converter-main.ts'
import { runJob } from './run-job.ts'

/**
 * A converter process of the pool (pool.ts), started with `node --max-old-space-size=<MB>`, an IPC
 * channel and a stdin pipe from its host: converts one job at a time (converter-main.ts). A page
 * that needs more memory ends this process only (V8 aborts it), whatever the shape of the
 * allocation; a host that goes, however it goes, ends it too, even in the middle of a page.
 */
serveConversions(runJob)
