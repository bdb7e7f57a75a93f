import type { Lifetime } from 'dsh-core'
import { jobSize, runJob, type ConversionJob } from './job.ts'
import type { ConversionPool } from './pool.ts'

/** Where each conversion runs: small pages on the event loop (a worker hop costs more than they do), the rest in the pool. */
export class PageConverter {
  constructor(
    private readonly pool: ConversionPool | undefined,
    private readonly minWorkerChars: number,
  ) {}

  convert(job: ConversionJob, lifetime: Lifetime): Promise<string> {
    if (!this.pool || jobSize(job) < this.minWorkerChars) return runJob(job)
    return this.pool.convert(job, lifetime)
  }
}
