#!/usr/bin/env node
// `dsh` in this repository: the TypeScript sources run through tsx, so a fresh clone needs no build
// step. The published package's bin is dist/bin.js, the same entry built (publishConfig.bin).
import { register } from 'tsx/esm/api'

register()
await import('../src/bin.ts')
