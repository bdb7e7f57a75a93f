// Runs the reference harness once on a scratch project with one skill and prints what the model was
// shown and what happened:
//   node packages/cli/cli/bin/run-ts.mjs examples/harness/run.ts
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { converse, startHarness } from './harness.ts'
import { scriptedModel } from './scripted-model.ts'

const scratch = mkdtempSync(join(tmpdir(), 'dsh-harness-'))
const project = join(scratch, 'project')
const home = join(scratch, 'home')
mkdirSync(join(project, '.dsh', 'skills', 'release-notes'), { recursive: true })
mkdirSync(home)
writeFileSync(
  join(project, '.dsh', 'skills', 'release-notes', 'SKILL.md'),
  '---\nname: release-notes\ndescription: How this project writes release notes. Use when asked for release notes.\n---\nOne line per change, newest first.\n',
)

const harness = await startHarness({ userHome: home })
try {
  const conversation = await converse(harness.app, { cwd: project, text: 'Write the release notes.', model: scriptedModel })
  const first = conversation.requests[0]!
  console.log(`tools: ${first.tools.map((tool) => tool.name).join(', ')}`)
  console.log(`prompt sections: ${harness.app.tools.sections().map((section) => section.name).join(', ')}`)
  console.log(`entered before the first request:\n${first.conversation.map((event) => `  ${event.type} (${(event.data as { source: { kind: string } }).source.kind})`).join('\n')}`)
  for (const call of conversation.calls) console.log(`call ${call.name} ${JSON.stringify(call.arguments)} → ${call.result.isError ? `error ${call.result.error.code}` : 'ok'}`)
  console.log(`answer: ${conversation.answer}`)
} finally {
  await harness.stop()
  rmSync(scratch, { recursive: true, force: true })
}
