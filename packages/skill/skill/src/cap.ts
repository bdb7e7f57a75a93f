import { capText } from 'dsh-core'

/** What the cut note needs of a loaded skill: its body, and where the whole of it can be read. */
export interface CappedSource {
  readonly content: string
  readonly provider: string
  readonly path?: string
}

/** A skill's body as the model is given it (`loadMaxChars`): the rest is in its file, or with its provider. */
export function capSkillContent(skill: CappedSource, max: number): string {
  const rest = skill.path ? `is in ${skill.path}; read it from there when the task needs it` : `is not shown (the "${skill.provider}" skill provider holds it)`
  return capText(skill.content, max, { what: "skill's instructions", setting: 'loadMaxChars', rest })
}
