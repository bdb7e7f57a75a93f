import { toJson } from '../json.ts'
import { PresetError } from './errors.ts'

const MAX_PRESET_DEPTH = 64

/** Plain data only: a cyclic alias or a tagged value (`!!binary`) would break every consumer. */
export function plainData(value: unknown, what: string): unknown {
  const plain = toJson(value, MAX_PRESET_DEPTH)
  if (!plain.ok) throw new PresetError(`${what} holds something that is not plain data: ${plainProblem(plain.problem)}`, 'PRESET_INVALID')
  return plain.value
}

/** `$[2].config.blob is a Uint8Array …` → `row 3: config.blob is a Uint8Array …` */
function plainProblem(problem: string): string {
  return problem.replace(/^\$\[(\d+)\]\.?/, (_, index: string) => `row ${Number(index) + 1}: `).replace(/^\$/, 'the document')
}
