import { MAX_TIMER_DELAY_MS } from 'dsh-core'
import { MAX_DESCRIPTION_LENGTH } from '../name.ts'
import { z } from 'zod'

export const ToolSkillConfig = z
  .strictObject({
    /** Each catalog description is cut to this many characters (with `...`); at most the spec's 1024. */
    catalogDescriptionMaxLength: z.number().int().min(3).max(MAX_DESCRIPTION_LENGTH).default(500),
    /**
     * Characters the catalog's entry lines may take together. Over it, descriptions are shortened
     * (all to one common length, never below `catalogMinDescriptionLength`) before any entry is left out.
     */
    catalogBudgetChars: z.number().int().positive().default(8000),
    /** The shortest a description is cut to for the budget before entries are left out instead. */
    catalogMinDescriptionLength: z.number().int().min(3).default(40),
    /** The `skill` tool's budget for one load. */
    timeoutMs: z.number().int().positive().max(MAX_TIMER_DELAY_MS).default(30_000),
  })
  .refine((config) => config.catalogMinDescriptionLength <= config.catalogDescriptionMaxLength, {
    path: ['catalogMinDescriptionLength'],
    message: 'must not exceed catalogDescriptionMaxLength',
  })
export type ToolSkillConfig = z.infer<typeof ToolSkillConfig>

export const Config = (config: unknown) => ToolSkillConfig.parse(config ?? {})
