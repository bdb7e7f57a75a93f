import { symbolScenarios } from './scenarios.ts'

// Real pyright-langserver through the coding preset and the lsp tool.
symbolScenarios('symbol-anchored positions on a real pyright', 'py-symbols', {
  main: 'geo/main.py',
  cjkModule: 'geo/面积.py',
  rectLine: 4,
  rectColumn: 8,
  rectClass: 'geo/shapes.py:6:7',
  widthLine: 6,
  widthLocal: 'geo/main.py:6:1',
  widthAttribute: 'geo/shapes.py:8:14',
  astralLine: 7,
  sumName: 'area_sum',
  sumFunction: 'geo/shapes.py:20:5',
  sumAndAreaLine: 9,
  rectArea: 'geo/shapes.py:11:9',
  aboveWidestLine: 16,
  widestFunction: 'geo/shapes.py:25:5',
  cjkLine: 18,
  cjkFunction: 'geo/面积.py:1:5',
  cjkTotal: 'geo/面积.py:5:15',
  cjkCallColumns: [21, 32],
  // First by name in geo/ (before __init__.py): the workspace search takes the next file.
  unreadable: ['geo/__aaa.py'],
})
