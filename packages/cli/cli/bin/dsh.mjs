#!/usr/bin/env node
// `dsh` in this repository. Normally the TypeScript sources run through tsx, so a fresh clone needs
// no build step. Under node's `--conditions=dsh-built` (the test suite gives it to the children it
// starts, after building once per run) the workspace packages resolve to their bundle/ files and tsx
// is not loaded: its module hooks cost more CPU per process than the rest of a boot.
// The published package's bin is bundle/bin.js, the same entry built and bundled (publishConfig.bin).
const index = import.meta.resolve('dsh-cli')
if (index.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api')
  register()
}
await import(new URL(index.endsWith('.ts') ? 'bin.ts' : 'bin.js', index).href)
