import { cpSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { extname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { bootPreset, type Host, type ToolResult } from 'dsh-core'
import { lineIdentifiers, symbolUses } from '../packages/lsp/tool-lsp/src/symbol-search.ts'

// Accuracy of positions, not speed: how often a goToDefinition through the lsp tool lands on the
// intended symbol when the column is off by ±1…±5 or missing, with `symbol` (ours) and without it
// (the baseline: the same tool and servers, the position taken as given). The right answer for a
// target is what the server says at its true column.

const REPO = fileURLToPath(new URL('../', import.meta.url))
const PROJECTS = [
  'packages/lsp/lsp-stdio/tests/real/workspaces/ts-project',
  'packages/lsp/lsp-stdio/tests/real/workspaces/py-project',
  'packages/lsp/tool-lsp/tests/real/workspaces/ts-symbols',
  'packages/lsp/tool-lsp/tests/real/workspaces/py-symbols',
]
const SOURCE_EXTENSIONS = new Set(['.ts', '.py'])
const TARGETS = Number(process.env.BENCH_POSITION_TARGETS ?? 200)
const SHIFTS = [0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5]

/** One use of a name in a source file; `line` and `column` one-based, `occurrence` among the name's uses on the line. */
interface Target {
  readonly workspace: string
  readonly file: string
  readonly line: number
  readonly column: number
  readonly symbol: string
  readonly occurrence: number
  readonly truth: string
}

type Trial = { readonly shift: number | 'none'; readonly withSymbol: boolean }

export async function benchLspPositions(): Promise<string[]> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bench-positions-')))
  const workspaces = PROJECTS.map((project) => {
    const dir = join(root, project.split('/').pop()!)
    cpSync(join(REPO, project), dir, { recursive: true })
    return dir
  })
  const host = await bootPreset({ preset: join(REPO, 'presets/coding.yml') })
  try {
    const call = lspCaller(host)
    const candidates = await definedUses(call, workspaces)
    const targets = sample(candidates, TARGETS)
    const right = new Map<string, number>()
    const misses: string[] = []
    for (const target of targets) {
      for (const trial of trialsFor()) {
        const answer = await call(target.workspace, argsFor(target, trial))
        const key = trialKey(trial)
        if (answer === target.truth) right.set(key, (right.get(key) ?? 0) + 1)
        else if (trial.withSymbol) misses.push(`${relative(root, join(target.workspace, target.file))}:${target.line}:${target.column} ${target.symbol}, column ${shiftLabel(trial.shift)}: got ${shown(answer, root) || 'nothing'}`)
      }
    }
    return report(targets, candidates.length, right, misses)
  } finally {
    await host.stop()
    rmSync(root, { recursive: true, force: true })
  }
}

/** An answer with the temporary directory taken out and the URIs decoded, for the miss list. */
function shown(answer: string, root: string): string {
  return decodeURIComponent(answer.replaceAll(`${pathToFileURL(root).href}/`, ''))
}

/** The answer of one goToDefinition call, as a comparable string ('' for no locations, `error CODE` for a failure). */
type Caller = (workspace: string, args: Record<string, unknown>) => Promise<string>

function lspCaller(host: Host): Caller {
  const { tools, sessions } = { tools: host.app.tools, sessions: host.app.sessions }
  return async (workspace, args) => {
    const result: ToolResult = await tools.execute({ name: 'lsp', arguments: { operation: 'goToDefinition', ...args }, session: sessions.create({ cwd: workspace }) })
    if (result.isError) return `error ${result.error.code}`
    const { locations } = result.value as { locations: { uri: string; range: { start: { line: number; character: number } } }[] }
    return locations.map((l) => `${l.uri}:${l.range.start.line + 1}:${l.range.start.character + 1}`).sort().join(' ')
  }
}

/** Every use of an identifier in the projects' sources for which the server names a definition at its true column. */
async function definedUses(call: Caller, workspaces: readonly string[]): Promise<Target[]> {
  const targets: Target[] = []
  for (const workspace of workspaces) {
    for (const file of sourceFiles(workspace)) {
      const lines = readFileSync(join(workspace, file), 'utf8').split(/\r\n|\r|\n/)
      for (const [index, text] of lines.entries()) {
        for (const symbol of lineIdentifiers(text)) {
          for (const [nth, column] of symbolUses(text, symbol).entries()) {
            const truth = await call(workspace, { filePath: file, line: index + 1, character: column + 1 })
            if (!truth || truth.startsWith('error')) continue
            targets.push({ workspace, file, line: index + 1, column: column + 1, symbol, occurrence: nth + 1, truth })
          }
        }
      }
    }
  }
  return targets
}

function sourceFiles(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name
      if (entry.isDirectory()) return sourceFiles(dir, path)
      return SOURCE_EXTENSIONS.has(extname(entry.name)) ? [path] : []
    })
}

/** `count` targets spread evenly over the candidates (all of them when there are fewer). */
function sample(candidates: readonly Target[], count: number): Target[] {
  if (candidates.length <= count) return [...candidates]
  return Array.from({ length: count }, (_, i) => candidates[Math.floor((i * candidates.length) / count)]!)
}

function trialsFor(): Trial[] {
  return [...SHIFTS.flatMap((shift) => [false, true].map((withSymbol) => ({ shift, withSymbol }))), { shift: 'none', withSymbol: true }]
}

/**
 * What a model that miscounted by `shift` sends. Columns below 1 are clamped (the schema refuses
 * them). With no column, the model names the occurrence when it is not the first use on the line.
 */
function argsFor(target: Target, trial: Trial): Record<string, unknown> {
  const args: Record<string, unknown> = { filePath: target.file, line: target.line }
  if (trial.shift !== 'none') args.character = Math.max(1, target.column + trial.shift)
  if (trial.withSymbol) args.symbol = target.symbol
  if (trial.shift === 'none' && target.occurrence > 1) args.occurrence = target.occurrence
  return args
}

function shiftLabel(shift: number | 'none'): string {
  if (shift === 'none') return 'none'
  return shift === 0 ? 'true' : `${shift > 0 ? '+' : ''}${shift}`
}

function trialKey(trial: Trial): string {
  return `${trial.shift}/${trial.withSymbol}`
}

function report(targets: readonly Target[], candidates: number, right: ReadonlyMap<string, number>, misses: readonly string[]): string[] {
  const share = (trial: Trial) => (100 * (right.get(trialKey(trial)) ?? 0)) / targets.length
  const percent = (value: number) => `${value.toFixed(1)} %`
  const languages = ['.ts', '.py'].map((ext) => `${targets.filter((t) => t.file.endsWith(ext)).length} ${ext}`).join(', ')
  const lines = [
    `${targets.length} targets (${languages}) from ${candidates} uses with a definition; goToDefinition, right = the answer at the true column`,
    'column            without symbol    with symbol    ratio',
  ]
  for (const shift of [...SHIFTS].sort((a, b) => Math.abs(a) - Math.abs(b) || a - b)) {
    const without = share({ shift, withSymbol: false })
    const withSymbol = share({ shift, withSymbol: true })
    lines.push(`${shiftLabel(shift).padEnd(16)}  ${percent(without).padStart(14)}  ${percent(withSymbol).padStart(13)}  ${`${(withSymbol / without).toFixed(2)}x`.padStart(7)}`)
  }
  lines.push(`${'none'.padEnd(16)}  ${'(not possible)'.padStart(14)}  ${percent(share({ shift: 'none', withSymbol: true })).padStart(13)}`)
  lines.push(`misses with symbol: ${misses.length}`)
  for (const miss of misses.slice(0, 20)) lines.push(`  ${miss}`)
  return lines
}
