import { symbolScenarios } from './scenarios.ts'

// Real typescript-language-server 5.3 + TypeScript 5.9 through the coding preset and the lsp tool.
symbolScenarios('symbol-anchored positions on a real typescript-language-server', 'ts-symbols', {
  main: 'src/main.ts',
  cjkModule: 'src/面积.ts',
  rectLine: 4,
  rectColumn: 18,
  rectClass: 'src/geometry.ts:5:14',
  widthLine: 6,
  widthLocal: 'src/main.ts:6:7',
  widthAttribute: 'src/geometry.ts:6:24',
  astralLine: 7,
  sumName: 'areaSum',
  sumFunction: 'src/geometry.ts:20:17',
  sumAndAreaLine: 9,
  rectArea: 'src/geometry.ts:8:3',
  aboveWidestLine: 16,
  widestFunction: 'src/geometry.ts:24:17',
  cjkLine: 18,
  cjkFunction: 'src/面积.ts:1:17',
  cjkTotal: 'src/面积.ts:5:41',
  cjkCallColumns: [47, 58],
  // First by name in their directories (the workspace's own level too): the workspace search takes the next file.
  unreadable: ['src/aaa-binary.ts', 'aaa-huge.ts'],
})
