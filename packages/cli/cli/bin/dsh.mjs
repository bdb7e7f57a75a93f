#!/usr/bin/env node
// `dsh` in this repository. Normally the TypeScript sources run through tsx, so a fresh clone needs
// no build step. Under node's `--conditions=dsh-built` (the test suite sets it for the children it
// starts, after building once per run) the workspace packages resolve to their built dist/ files and
// tsx is not loaded at all: its module hooks cost more CPU per process than the whole boot.
// The published package's bin is dist/bin.js, the same entry built (publishConfig.bin).
const entry = import.meta.resolve('dsh-cli/bin')
if (entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api')
  register()
}
await import(entry)
