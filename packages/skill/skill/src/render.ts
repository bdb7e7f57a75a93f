import { assertNever } from 'dsh-core'
import { cutText } from './text.ts'
import type { ResourceBase } from './types.ts'

/** Escapes text placed between tags: `&`, `<`, `>`. */
export function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/**
 * A catalog description as the model reads it: as written, except a `<` that opens a tag, a comment
 * or an instruction (`<b`, `</`, `<!`, `<?`), which is written `&lt;`. That is the only thing that
 * could end the catalog's list or reminder early or open a block of its own; `&`, `>` and a `<`
 * before a space or digit are plain text the model reads as meant (entity-encoding them cost
 * characters of the budget and showed `R&D` as `R&amp;D`).
 */
export function escapeCatalogText(text: string): string {
  return text.replace(TAG_OPENER, '&lt;')
}

const TAG_OPENER = /<(?=[A-Za-z/!?])/g

/** Escapes a double-quoted attribute value: `&`, `"`, `<`. */
export function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')
}

/** What a loaded skill gives the model, whether the model asked for it or the user typed `/name`. */
export interface LoadedSkill {
  readonly name: string
  readonly provider: string
  readonly resourceBase?: ResourceBase
  readonly content: string
}

const ON_DEMAND = 'Read a referenced resource only when the task needs it.'

// A path (or URL) the model is told to use goes in as it is: `&` and `>` are characters of a path,
// and entity-encoding them would hand the model a path that does not exist. Only what could break
// the block's lines (a control character, `<`) makes it a JSON string instead, which is lossless.
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f<]/

function locationText(location: string): string {
  return UNSAFE_IN_LINE.test(location) ? JSON.stringify(location) : location
}

function resourceHints(skill: LoadedSkill): [string, string] {
  const base = skill.resourceBase
  if (!base) return [`Resources are managed by the "${escapeText(skill.provider)}" skill provider.`, ON_DEMAND]
  switch (base.kind) {
    case 'directory':
      return [
        `Base directory: ${locationText(base.path)}`,
        `Relative paths in these instructions are relative to the base directory; resolve them against it before use. ${ON_DEMAND}`,
      ]
    case 'url':
      return [`Base URL: ${locationText(base.url)}`, `Relative URLs in these instructions are relative to the base URL; resolve them against it before use. ${ON_DEMAND}`]
    case 'opaque':
      return [`Resources: ${escapeText(base.description)}`, ON_DEMAND]
    default:
      return assertNever(base, 'resource base')
  }
}

/**
 * The one block a loaded skill is shown as. The body is trusted content and goes in verbatim; the
 * name and the resource hints are escaped.
 */
export function renderSkillContent(skill: LoadedSkill): string {
  const [first, second] = resourceHints(skill)
  return [
    `<skill_content name="${escapeAttribute(skill.name)}">`,
    '<skill_resources>',
    first,
    second,
    '</skill_resources>',
    '',
    '<skill_instructions>',
    skill.content,
    '</skill_instructions>',
    '</skill_content>',
  ].join('\n')
}

/**
 * A description as the catalog shows it: whitespace runs collapsed to one space, trimmed, and, when
 * longer than `max` characters, cut at a grapheme boundary with a trailing `...` (at most `max`
 * characters in all).
 */
export function catalogDescription(description: string, max: number): string {
  return cutText(description.replace(/\s+/g, ' ').trim(), max)
}
