import { configParser, MAX_TIMER_DELAY_MS } from 'dsh-core'
import { MAX_DESCRIPTION_LENGTH } from '../name.ts'
import { DEFAULT_LISTING_MAX_CHARS } from './listing.ts'
import { z } from 'zod'

export const ToolSkillConfig = z
  .strictObject({
    /** Each catalog description is cut to this many characters (with `...`); at most the spec's 1024. */
    catalogDescriptionMaxLength: z.number().int().min(3).max(MAX_DESCRIPTION_LENGTH).default(500),
    /**
     * Characters the catalog's described lines may take together. Over it, descriptions are shortened
     * (all to one common length, never below `catalogMinDescriptionLength`), then the skills that no
     * longer fit are listed by name only.
     */
    catalogBudgetChars: z.number().int().positive().default(8000),
    /** The shortest a description is cut to for the budget before skills are listed by name only instead. */
    catalogMinDescriptionLength: z.number().int().min(3).default(40),
    /**
     * Characters the names-only lines may take together (skills past the described budget, listed by
     * name, grouped by origin). Only skills whose names do not fit here either are left out. The
     * default holds about 2,300 names of real length (18.8 characters on average in public
     * collections) besides the described ones: every name of 2,000 skills.
     */
    catalogNamesBudgetChars: z.number().int().min(0).default(48_000),
    /**
     * Characters the names of a `?` listing may take (a name and its ", " each): about 10,000 names
     * of real length. Past it the first names in priority order are listed and the answer says so.
     */
    listingMaxChars: z.number().int().min(1000).default(DEFAULT_LISTING_MAX_CHARS),
    /** The `skill` tool's budget for one load. */
    timeoutMs: z.number().int().positive().max(MAX_TIMER_DELAY_MS).default(30_000),
  })
  .refine((config) => config.catalogMinDescriptionLength <= config.catalogDescriptionMaxLength, {
    path: ['catalogMinDescriptionLength'],
    message: 'must not exceed catalogDescriptionMaxLength',
  })
export type ToolSkillConfig = z.infer<typeof ToolSkillConfig>

export const Config = configParser(ToolSkillConfig)
