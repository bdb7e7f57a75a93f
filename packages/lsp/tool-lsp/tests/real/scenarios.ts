import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { placesOf, realSuite, valueOf, type Fixture } from './harness.ts'

/**
 * The places one fixture project has, one-based, as `path:line:column` of the declaration a
 * definition query should reach. Both fixtures have the same shape: a shapes module, a module with
 * CJK identifiers, and a main module using both (the line numbers below are main's).
 */
export interface FixtureFacts {
  readonly main: string
  readonly cjkModule: string
  /** Line of `rect = new Rect(…)`: `Rect` at `rectColumn`, something else at column 1. */
  readonly rectLine: number
  readonly rectColumn: number
  readonly rectClass: string
  /** Line of `width = rect.width`: the local, then the attribute. */
  readonly widthLine: number
  readonly widthLocal: string
  readonly widthAttribute: string
  /** Line with two emoji in a string before `areaSum`/`area_sum`. */
  readonly astralLine: number
  readonly sumName: string
  readonly sumFunction: string
  /** Line of `… = areaSum(shapes) + rect.area()`. */
  readonly sumAndAreaLine: number
  readonly rectArea: string
  /** A line of `report` one above the one that calls `widest`. */
  readonly aboveWidestLine: number
  readonly widestFunction: string
  /** Line of `cjk: 面积(1, 2) + 总面积`. */
  readonly cjkLine: number
  readonly cjkFunction: string
  readonly cjkTotal: string
  /** Columns of the two calls on line 5 of the CJK module, where `面积` is first in a string, then inside `总面积`. */
  readonly cjkCallColumns: readonly [number, number]
  /** Files of the server's language written as random bytes, each first by name in its directory; a `Shape` is declared elsewhere. */
  readonly unreadable: readonly string[]
}

/** The cases, against the real language server behind `fixture`. */
export function symbolScenarios(title: string, fixture: Fixture, facts: FixtureFacts): void {
  describe(title, () => {
    const suite = realSuite(fixture, {
      prepare: (dir) => {
        for (const file of facts.unreadable) {
          mkdirSync(dirname(join(dir, file)), { recursive: true })
          writeFileSync(join(dir, file), Buffer.concat([Buffer.from([0, 1, 2, 0]), randomBytes(3000)]))
        }
      },
    })
    const definition = (args: Record<string, unknown>) => suite.call({ operation: 'goToDefinition', filePath: facts.main, ...args })

    it('a wrong column with the right symbol answers as the true column does', async () => {
      const truth = placesOf(await definition({ line: facts.rectLine, character: facts.rectColumn }))
      expect(truth).toContain(facts.rectClass)
      expect(placesOf(await definition({ line: facts.rectLine, character: 1 }))).not.toContain(facts.rectClass)
      for (const character of [1, facts.rectColumn - 3, facts.rectColumn + 5, 200]) {
        const result = await definition({ line: facts.rectLine, character, symbol: 'Rect' })
        expect(placesOf(result), `character ${character}`).toEqual(truth)
        expect(valueOf(result).resolved).toEqual({ filePath: facts.main, symbol: 'Rect', line: facts.rectLine, character: facts.rectColumn, occurrence: 1 })
      }
    })

    it('finds a symbol after astral characters without a column, in UTF-16 units', async () => {
      const result = await definition({ line: facts.astralLine, symbol: facts.sumName })
      expect(placesOf(result)).toContain(facts.sumFunction)
      const resolved = valueOf(result).resolved
      const truth = await definition({ line: facts.astralLine, character: resolved.character })
      expect(placesOf(truth)).toContain(facts.sumFunction)
      expect(result.content[0]?.text.split('\n')[0]).toBe(`goToDefinition at ${facts.main}:${facts.astralLine}:${resolved.character} (symbol "${facts.sumName}")`)
    })

    it('occurrence 2 on a line using the name twice reaches the second one', async () => {
      expect(placesOf(await definition({ line: facts.widthLine, symbol: 'width' }))).toContain(facts.widthLocal)
      const second = await definition({ line: facts.widthLine, symbol: 'width', occurrence: 2 })
      expect(placesOf(second)).toContain(facts.widthAttribute)
      expect(placesOf(second)).not.toContain(facts.widthLocal)
      expect(second.content[0]?.text).toMatch(/\(symbol "width"; occurrence 2\)/)
    })

    it('finds the symbol one line away and says the line moved', async () => {
      const result = await definition({ line: facts.aboveWidestLine, symbol: 'widest' })
      expect(placesOf(result)).toContain(facts.widestFunction)
      expect(valueOf(result).resolved).toMatchObject({ line: facts.aboveWidestLine + 1, requestedLine: facts.aboveWidestLine })
      expect(result.content[0]?.text).toContain(`not on line ${facts.aboveWidestLine}, found on line ${facts.aboveWidestLine + 1}`)
    })

    it('does not match a symbol inside a longer identifier (area vs areaSum)', async () => {
      const result = await definition({ line: facts.sumAndAreaLine, symbol: 'area' })
      expect(placesOf(result)).toContain(facts.rectArea)
      expect(placesOf(result)).not.toContain(facts.sumFunction)
      expect(valueOf(result).resolved.line).toBe(facts.sumAndAreaLine)
    })

    it('a symbol that is not there is LSP_SYMBOL_NOT_FOUND, listing the identifiers on the line', async () => {
      const result = await definition({ line: facts.widthLine, character: 3, symbol: 'height' })
      expect(result.isError && result.error.code).toBe('LSP_SYMBOL_NOT_FOUND')
      expect(result.content[0]?.text).toMatch(new RegExp(`is not on line ${facts.widthLine} of ${facts.main} or within 3 lines of it\\. Identifiers on line ${facts.widthLine}: (const, )?width, rect\\.$`))
    })

    it('finds CJK identifiers, and not one inside a longer one', async () => {
      expect(placesOf(await definition({ line: facts.cjkLine, symbol: '面积' }))).toContain(facts.cjkFunction)
      expect(placesOf(await definition({ line: facts.cjkLine, symbol: '总面积' }))).toContain(facts.cjkTotal)
      // On line 5 of the CJK module `面积` is in a string and inside `总面积` before it is called twice:
      // neither counts as a use.
      for (const [index, column] of facts.cjkCallColumns.entries()) {
        const call = await suite.call({ operation: 'goToDefinition', filePath: facts.cjkModule, line: 5, symbol: '面积', ...(index ? { occurrence: 2 } : {}) })
        expect(valueOf(call).resolved.character).toBe(column)
        expect(placesOf(call)).toContain(facts.cjkFunction)
      }
    })

    // A workspace search opens one file of the server's languages (tsserver has no project without
    // one), the first by name in its directory. A binary file with the language's extension there
    // (found driving `dsh call lsp_symbols` on a workspace holding a `src/bin.ts` of random bytes)
    // failed every workspace search of the server: `No symbols match "target". (typescript did not
    // answer: LSP_SOURCE_INVALID: … is a binary file)`. The next file of the directory is taken
    // instead. Last here, on the server the cases above started (the files are in place from the start).
    it('searches symbols with the next file of the directory beside a file that cannot be read', async () => {
      const value = valueOf(await suite.host.app.tools.execute({ name: 'lsp_symbols', arguments: { query: 'Shape' }, session: suite.host.app.sessions.create({ cwd: suite.dir }) }))
      expect(value.unanswered).toEqual([])
      expect(value.symbols.map((s: any) => s.name)).toContain('Shape')
    })
  })
}
