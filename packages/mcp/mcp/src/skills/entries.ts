import { SKILL_LIMITS, type Skill } from '@modelcontextprotocol/client/ext/skills'
import { MAX_SKILL_NAME_LENGTH, normalisedSkillName, skillFields, type SkillFields } from 'dsh-skill'

/** A listed skill the catalog can offer: its entry, its checked frontmatter, the name the catalog gives it. */
export interface OfferedSkill {
  readonly entry: Skill
  readonly fields: SkillFields
  /** `<server>-<name>`, or `<server>-<skill path>` where two entries of the listing share a name. */
  readonly catalogName: string
  /** The skill's root URI: its SKILL.md URI without `/SKILL.md`. */
  readonly root: string
  /** Paths of its files relative to the root, as the entry lists them. */
  readonly files: readonly string[]
}

export interface CheckedListing {
  readonly offered: readonly OfferedSkill[]
  /** One line per entry that is not offered, naming its URI and why. */
  readonly problems: readonly string[]
}

const MANIFEST = '/SKILL.md'

/** `skill://acme/billing/refunds/SKILL.md` → `skill://acme/billing/refunds`; undefined when the URI does not end in `/SKILL.md`. */
export function skillRoot(uri: string): string | undefined {
  return uri.endsWith(MANIFEST) ? uri.slice(0, -MANIFEST.length) : undefined
}

/** The segments of the skill path (`acme`, `billing`, `refunds`): what follows `scheme://`. */
function skillPath(root: string): string[] {
  const at = root.indexOf('://')
  return (at >= 0 ? root.slice(at + 3) : root).split('/').filter(Boolean)
}

/**
 * Checks a server's listing as the catalog will use it. Each entry's frontmatter is read exactly as
 * a SKILL.md file's is (dsh-skill `skillFields`: name rules, description, invocation flags), its
 * URI must end in `/SKILL.md` and its `resources` must be the listed array within the SEP's limits:
 * a `"dynamic"` skill has no digests to verify its files against and is not offered. Names are
 * qualified by the server (`<server>-<name>`) so a server's skill never shadows, and is never
 * mistaken for, a skill of another origin; two entries sharing a name are told apart by their whole
 * skill path (`<server>-acme-billing-refunds`), never one dropped for the other.
 */
export function checkListing(serverName: string, entries: readonly Skill[]): CheckedListing {
  const problems: string[] = []
  const server = normalisedSkillName(serverName) ?? 'mcp'
  const usable: { entry: Skill; fields: SkillFields; root: string; files: string[] }[] = []
  for (const entry of entries) {
    const problem = (reason: string) => problems.push(`${entry.uri}: ${reason}`)
    const root = skillRoot(entry.uri)
    if (!root) {
      problem('the skill URI does not end in /SKILL.md')
      continue
    }
    if (!Array.isArray(entry.resources)) {
      problem('resources: "dynamic" (no digests to verify the files against); not offered')
      continue
    }
    const total = entry.resources.reduce((sum, file) => sum + file.size, 0)
    if (entry.resources.length > SKILL_LIMITS.files || total > SKILL_LIMITS.bytes) {
      problem(`${entry.resources.length} files of ${total} bytes, over the SEP-2640 limits (${SKILL_LIMITS.files} files, ${SKILL_LIMITS.bytes} bytes); not offered`)
      continue
    }
    const segments = skillPath(root)
    const checked = skillFields(entry.frontmatter, { expectedName: segments.at(-1) ?? '', kind: 'directory' })
    if (!checked.ok) {
      problem(checked.reason)
      continue
    }
    for (const warning of checked.warnings) problem(`${warning} (offered)`)
    const files = entry.resources.map((file) => (file.uri.startsWith(`${root}/`) ? file.uri.slice(root.length + 1) : file.uri))
    usable.push({ entry, fields: checked.fields, root, files })
  }
  const byName = new Map<string, number>()
  for (const { fields } of usable) byName.set(fields.name, (byName.get(fields.name) ?? 0) + 1)
  const offered: OfferedSkill[] = []
  const taken = new Set<string>()
  for (const skill of usable) {
    const shared = byName.get(skill.fields.name)! > 1
    const wanted = `${server}-${shared ? skillPath(skill.root).join('-') : skill.fields.name}`
    const catalogName = wanted.length <= MAX_SKILL_NAME_LENGTH ? normalisedSkillName(wanted) : undefined
    if (!catalogName) {
      problems.push(`${skill.entry.uri}: its catalog name "${wanted}" would be longer than ${MAX_SKILL_NAME_LENGTH} characters; not offered`)
      continue
    }
    if (taken.has(catalogName)) {
      problems.push(`${skill.entry.uri}: another skill of this server already has the catalog name "${catalogName}"; not offered`)
      continue
    }
    taken.add(catalogName)
    offered.push({ ...skill, catalogName })
  }
  return { offered, problems }
}
