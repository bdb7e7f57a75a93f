import type { Lifetime } from 'dsh-core'
import { jobSize, type ConversionJob, type Converted } from './job.ts'
import type { ConversionPool } from './pool.ts'

/** Where each conversion runs: small pages on the event loop (a hop to a converter process costs more than they do), the rest in the pool. */
export class PageConverter {
  constructor(
    private readonly pool: ConversionPool | undefined,
    private readonly minWorkerChars: number,
  ) {}

  convert(job: ConversionJob, lifetime: Lifetime): Promise<Converted> {
    if (this.pool && jobSize(job) >= this.minWorkerChars) return this.pool.convert(job, lifetime)
    // Imported by the first page converted here, then called directly: a dynamic import (or one
    // more async layer) per call costs a resolution and promises, which a small page's fetch feels.
    return conversions ? conversions.runJob(job) : firstConversion(job)
  }
}

async function firstConversion(job: ConversionJob): Promise<Converted> {
  conversions ??= await import('./run-job.ts')
  return conversions.runJob(job)
}

/** The converter's code (run-job.ts), loaded by the first conversion on the event loop. */
let conversions: typeof import('./run-job.ts') | undefined
