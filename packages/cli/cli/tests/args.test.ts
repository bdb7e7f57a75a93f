import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { invocationDir, parseInvocation, presetPath, UsageError } from '../src/args.ts'
import { ROOT } from './helpers.ts'

describe('parseInvocation', () => {
  it('defaults to the coding preset, the invocation directory and text output', () => {
    const invocation = parseInvocation(['tools'], '/some/where')
    expect(invocation).toEqual({
      command: { kind: 'tools', all: false },
      preset: join(ROOT, 'presets', 'coding.yml'),
      overlays: [],
      cwd: '/some/where',
      json: false,
      verbose: false,
      startTimeoutMs: undefined,
    })
  })

  it('resolves --preset files, --config overlays and --cwd against the invocation directory', () => {
    const invocation = parseInvocation(
      ['call', 'echo', '{"text":"hi"}', '--preset', 'p/preset.yml', '--config', 'a.yml', '--config', '/abs/b.yml', '--cwd', 'proj', '--json'],
      '/base',
    )
    expect(invocation.command).toEqual({ kind: 'call', tool: 'echo', input: '{"text":"hi"}', approve: false })
    expect(invocation.preset).toBe('/base/p/preset.yml')
    expect(invocation.overlays).toEqual(['/base/a.yml', '/abs/b.yml'])
    expect(invocation.cwd).toBe('/base/proj')
    expect(invocation.json).toBe(true)
  })

  it('collects --message for context in order', () => {
    expect(parseInvocation(['context', '--message', 'a', '--message', 'b'], '/x').command).toEqual({ kind: 'context', messages: ['a', 'b'], searches: [] })
  })

  it.each([[['frob']], [[]], [['call']], [['status', 'extra']], [['tools', '--message', 'm']], [['tools', '--nope']], [['tools', '--preset', 'no-such-preset']]])(
    'refuses %j with a UsageError',
    (argv) => {
      expect(() => parseInvocation(argv, '/x')).toThrow(UsageError)
    },
  )
})

describe('presetPath', () => {
  it('maps a bare name to presets/<name>.yml and keeps paths as paths', () => {
    expect(presetPath('base', '/x')).toBe(join(ROOT, 'presets', 'base.yml'))
    expect(presetPath('mine.yml', '/x')).toBe('/x/mine.yml')
    expect(presetPath('/abs/mine.yaml', '/x')).toBe('/abs/mine.yaml')
  })
})

describe('invocationDir', () => {
  it('is the directory the user typed `pnpm dsh` in when run through the root script', () => {
    expect(invocationDir({ npm_package_name: 'dsh-extensions', npm_lifecycle_event: 'dsh', INIT_CWD: '/home/me/project' })).toBe('/home/me/project')
    expect(invocationDir({ npm_package_name: 'dsh-extensions', npm_lifecycle_event: 'start', INIT_CWD: '/home/me/project' })).toBe('/home/me/project')
  })

  it('is the process directory otherwise', () => {
    expect(invocationDir({ INIT_CWD: '/elsewhere' })).toBe(process.cwd())
    expect(invocationDir({ npm_package_name: 'other', npm_lifecycle_event: 'dsh', INIT_CWD: '/elsewhere' })).toBe(process.cwd())
  })
})
