// Where the user skill roots are, from the host's environment: a home that cannot be used is no home
// (its roots are skipped and said to be), and a relative one is never resolved against the directory
// dsh runs in, which would make a repository's folders the user's.
import { describe, expect, it } from 'vitest'
import { Config, placesOf, skillRoots } from 'dsh-skill-fs'

const config = Config({})

describe('placesOf', () => {
  it('a relative HOME is no home: the roots under ~ are skipped and the reason kept; DSH_HOME still gives the dsh root', () => {
    const places = placesOf(config, { HOME: 'repo', DSH_HOME: '/srv/dsh' })
    expect(places.userHome).toBeUndefined()
    expect(places.homeless).toBe('HOME is "repo", not an absolute path')
    expect(skillRoots(config, places, undefined, undefined).map((root) => root.path)).toEqual(['/srv/dsh/skills'])
  })

  it('a relative DSH_HOME is DSH_HOME_INVALID, not <cwd>/<it>', () => {
    expect(() => placesOf(config, { HOME: '/home/u', DSH_HOME: 'dsh' })).toThrow(expect.objectContaining({ code: 'DSH_HOME_INVALID', message: expect.stringMatching(/^DSH_HOME is "dsh", not an absolute path/) }))
  })

  it('an absolute HOME gives all three user roots', () => {
    const places = placesOf(config, { HOME: '/home/u' })
    expect(places.homeless).toBeUndefined()
    expect(skillRoots(config, places, undefined, undefined).map((root) => root.source)).toEqual(['user-dsh', 'user-agents', 'user-claude'])
  })
})
