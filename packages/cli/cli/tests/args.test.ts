import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { invocationDir, parseInvocation, presetPath, shippedPreset, UsageError } from '../src/args.ts'
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

describe('dsh serve flags', () => {
  const http = (...flags: string[]) => {
    const { command } = parseInvocation(['serve', ...flags], '/x', { DSH_TEST_TOKENS: 'a b,c' })
    if (command.kind !== 'serve') throw new Error('not serve')
    return command
  }

  it('stdio by default, with the shared caps and the request deadline', () => {
    expect(http()).toMatchObject({ http: undefined, maxConcurrentCalls: 16, requestTimeoutMs: 600_000, answerTimeoutMs: 600_000 })
  })

  it.each([
    ['0', '127.0.0.1', 0],
    ['8080', '127.0.0.1', 8080],
    ['localhost:9000', 'localhost', 9000],
    ['[::1]:0', '::1', 0],
  ])('--http %s listens on %s port %d', (value, host, port) => {
    expect(http('--http', value).http).toMatchObject({ host, port, auth: { kind: 'none' }, drainTimeoutMs: 10_000, maxSessions: 1000 })
  })

  it('reads bearer tokens from the named variable and origins as hostnames', () => {
    expect(http('--http', '0.0.0.0:80', '--auth', 'bearer', '--token-env', 'DSH_TEST_TOKENS', '--allowed-origin', 'https://App.example.com:8443').http).toMatchObject({
      auth: { kind: 'bearer', tokens: ['a', 'b', 'c'] },
      allowedOrigins: ['app.example.com'],
    })
  })

  it.each([
    [['--http', '0.0.0.0:80'], 'not loopback'],
    [['--http', '[::]:80'], 'not loopback'],
    [['--http', '70000'], 'a port from 0 to 65535'],
    [['--http', '0', '--auth', 'magic'], '--auth must be none, bearer or oauth'],
    [['--http', '0', '--auth', 'bearer'], 'needs --token-env'],
    [['--http', '0', '--auth', 'oauth'], 'needs --issuer'],
    [['--http', '0', '--auth', 'oauth', '--issuer', 'https://as.example', '--token-env', 'X'], '--token-env does not apply to --auth oauth'],
    [['--http', '0', '--issuer', 'https://as.example'], '--issuer does not apply to --auth none'],
    [['--scope', 'x'], '--scope belongs to dsh serve --http'],
    [['--http', '0', '--request-timeout-ms', '0'], '--request-timeout-ms must be a positive whole number'],
  ])('refuses serve %j: %s', (flags, problem) => {
    expect(() => http(...flags)).toThrow(problem)
  })

  it('serve flags belong to serve', () => {
    expect(() => parseInvocation(['tools', '--http', '0'], '/x')).toThrow('--http belongs to the serve command')
  })
})

describe('presetPath', () => {
  it('maps a bare name to presets/<name>.yml and keeps paths as paths', () => {
    expect(presetPath('base', '/x')).toBe(join(ROOT, 'presets', 'base.yml'))
    expect(presetPath('mine.yml', '/x')).toBe('/x/mine.yml')
    expect(presetPath('/abs/mine.yaml', '/x')).toBe('/abs/mine.yaml')
  })
})

describe('shippedPreset', () => {
  it('is true for a named preset only: a preset named by path is read from its YAML, even beside a twin', () => {
    expect(shippedPreset(presetPath('base', '/x'))).toBe(true)
    expect(shippedPreset(presetPath('coding', '/x'))).toBe(true)
    expect(shippedPreset(presetPath('mine.yml', '/x'))).toBe(false)
    expect(shippedPreset('/repo/.dsh/base.yml')).toBe(false)
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
