// Questions from servers to the user (issue 28 item 4): form and URL elicitation on both
// revisions — a 2025-11-25 server's `elicitation/create`, a 2026-07-28 server's `input_required`
// result (the SDK retries the call with the answer) — answered through dsh-core's questioner seam;
// with nobody to ask, declined at once with MCP_QUESTION_DECLINED in the log.
import { acceptDefaults, type UserQuestion } from 'dsh-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startQuestionServers, type QuestionServers } from './fixtures/question-server.ts'
import { startRig, stopRigs, type Rig } from './fixtures/rig.ts'

let servers: QuestionServers
let rig: Rig

beforeAll(async () => {
  servers = await startQuestionServers()
  rig = await startRig()
  await rig.add({ transport: 'streamable-http', serverName: 'old', url: servers.oldUrl, oauth: false, protocol: '2025-11-25', startupTimeoutMs: 20_000 })
  await rig.add({ transport: 'streamable-http', serverName: 'new', url: servers.newUrl, oauth: false, protocol: '2026-07-28', startupTimeoutMs: 20_000 })
}, 60_000)

afterAll(async () => {
  await stopRigs()
  await servers?.close()
})

/** Runs `work` with `questioner` answering, then takes it away. */
async function answering<T>(questioner: Parameters<Rig['app']['tools']['questioner']>[0], work: () => Promise<T>): Promise<T> {
  const unregister = rig.app.tools.questioner(questioner)
  try {
    return await work()
  } finally {
    unregister()
  }
}

describe.each(['old', 'new'])('elicitation from the %s revision', (server) => {
  it('a form reaches the questioner with the server\'s message and schema, and its answer reaches the server', async () => {
    const asked: UserQuestion[] = []
    const text = await answering(
      (question) => {
        asked.push(question)
        return { action: 'accept', content: { name: 'Grace' } }
      },
      () => rig.text(`mcp__${server}__ask`),
    )
    expect(text).toBe('Hello Grace')
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({ kind: 'form', source: server, message: 'What is your name?', schema: { properties: { name: { default: 'Ada' } } } })
  })

  it('`dsh call --yes` (acceptDefaults) answers a form with its defaults', async () => {
    expect(await answering(acceptDefaults, () => rig.text(`mcp__${server}__ask`))).toBe('Hello Ada')
  })

  it('a URL question reaches the questioner; declining it is what the server hears', async () => {
    const asked: UserQuestion[] = []
    const text = await answering(
      (question) => {
        asked.push(question)
        return { action: 'decline' }
      },
      () => rig.text(`mcp__${server}__visit`),
    )
    expect(text).toBe('decline')
    expect(asked[0]).toMatchObject({ kind: 'url', source: server, url: 'https://accounts.example.test/link?code=1234' })
  })

  it('with nobody to ask the question is declined at once, and the log says so with MCP_QUESTION_DECLINED', async () => {
    const before = rig.logs.length
    expect(await rig.text(`mcp__${server}__ask`)).toBe('decline')
    const note = rig.logs.slice(before).join('\n')
    expect(note).toContain('MCP_QUESTION_DECLINED')
    expect(note).toContain(`MCP server ${server} asked the user to fill in a form`)
  })
})

describe('2025-11-25 URL elicitation required (-32042)', () => {
  // The SDK rebuilds this answer as its own UrlElicitationRequiredError, without our ServerErrorData:
  // it read as a lost connection (MCP_CONNECTION_LOST), where the server is up and wants a page
  // opened. The page goes to the user as a URL question does; visited, the call is sent once more.
  it('with nobody to ask: MCP_SERVER_ERROR (error -32042) naming the URL to open, the question declined in the log, and the connection stays', async () => {
    const before = rig.logs.length
    const result = await rig.call('mcp__old__link', { key: 'nobody' })
    expect(result.isError && result.error.code).toBe('MCP_SERVER_ERROR')
    const message = result.isError ? result.error.message : ''
    expect(message).toContain('error -32042')
    expect(message).toContain('MCP server old needs the user to open a URL before this call')
    expect(message).toContain('Open this page to link your account.')
    expect(message).toContain('https://accounts.example.test/link?code=1234')
    expect(message).not.toMatch(/connection|lost/i)
    expect(rig.logs.slice(before).join('\n')).toContain('MCP server old asked the user to visit a URL ("Open this page to link your account."); declined')
    expect((await rig.status('old')).state).toBe('ready')
  })

  it('the page reaches the questioner as a URL question; accepted (visited), the call is sent once more and answered', async () => {
    const asked: UserQuestion[] = []
    const text = await answering(
      (question) => {
        asked.push(question)
        return { action: 'accept' }
      },
      () => rig.text('mcp__old__link', { key: 'visited' }),
    )
    expect(text).toBe('linked visited')
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({ kind: 'url', source: 'old', message: 'Open this page to link your account.', url: 'https://accounts.example.test/link?code=1234' })
  })

  it('declined by the user: the call fails with the -32042 error and is not sent again', async () => {
    let asked = 0
    const result = await answering(
      () => {
        asked++
        return { action: 'decline' }
      },
      () => rig.call('mcp__old__link', { key: 'declined' }),
    )
    expect(asked).toBe(1)
    expect(result.isError && result.error.code).toBe('MCP_SERVER_ERROR')
    expect(result.isError ? result.error.message : '').toContain('error -32042')
  })
})

describe('2026-07-28: the URL a call needs opened first is an input_required URL request (its revision has no -32042)', () => {
  // 2026-07-28 replaced server-to-client requests with multi round-trip results (SEP-2322): the
  // SDK v2 server refuses to send -32042 there (a handler that throws it is answered -32603 saying
  // so), and the page goes out as an `input_required` URL request instead, which the client answers
  // by retrying the call with the user's action. So the -32042 path is 2025-11-25's only.
  it('visited: the call is retried with the answer (a new request, the request state echoed) and the server\'s result returned', async () => {
    const before = servers.newRequests.length
    const asked: UserQuestion[] = []
    const text = await answering(
      (question) => {
        asked.push(question)
        return { action: 'accept' }
      },
      () => rig.text('mcp__new__link', { key: 'visited' }),
    )
    expect(text).toBe('linked visited')
    expect(asked).toEqual([expect.objectContaining({ kind: 'url', source: 'new', message: 'Open this page to link your account.', url: 'https://accounts.example.test/link?code=1234' })])
    const calls = servers.newRequests.slice(before).filter((request) => request.method === 'tools/call')
    expect(calls.map((call) => call.params?.inputResponses)).toEqual([undefined, { link: { action: 'accept' } }])
    expect(calls[1]!.params).toMatchObject({ requestState: 'link-visited' })
  })

  it('with nobody to ask: declined at once (MCP_QUESTION_DECLINED in the log), and the server\'s own answer to that is the call\'s (MCP_TOOL_ERROR naming the page)', async () => {
    const before = rig.logs.length
    const result = await rig.call('mcp__new__link', { key: 'nobody' })
    expect(result.isError && result.error.code).toBe('MCP_TOOL_ERROR')
    expect(result.isError ? result.error.message : '').toContain('not linked (decline): open https://accounts.example.test/link?code=1234 first')
    expect(rig.logs.slice(before).join('\n')).toContain('MCP server new asked the user to visit a URL ("Open this page to link your account."); declined')
    expect((await rig.status('new')).state).toBe('ready')
  })

  it('a 2026-07-28 server that throws the old error: its SDK answers -32603 instead, a plain MCP_SERVER_ERROR, and the connection stays', async () => {
    const result = await rig.call('mcp__new__link-thrown')
    expect(result.isError && result.error.code).toBe('MCP_SERVER_ERROR')
    expect(result.isError ? result.error.message : '').toContain('answered with error -32603')
    expect(result.isError ? result.error.message : '').toContain('The urlElicitationRequired error (-32042) of earlier revisions is not available on this revision')
    expect((await rig.status('new')).state).toBe('ready')
  })
})

describe('2026-07-28 multi round-trip', () => {
  it('the call is retried with the answer and the request state echoed exactly, on a new JSON-RPC id', async () => {
    const before = servers.newRequests.length
    expect(await answering(acceptDefaults, () => rig.text('mcp__new__ask'))).toBe('Hello Ada')
    const calls = servers.newRequests.slice(before).filter((request) => request.method === 'tools/call')
    expect(calls).toHaveLength(2)
    expect(calls[1]!.id).not.toEqual(calls[0]!.id)
    expect(calls[0]!.params).not.toHaveProperty('inputResponses')
    expect(calls[1]!.params).toMatchObject({ name: 'ask', requestState: 'asked-name', inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } } })
  })

  it('the SDK\'s own "Fulfilling input required" round counter is not passed on as the server\'s progress', async () => {
    // The SDK reports each round of the retry loop through the caller's onprogress; `dsh call` on a
    // terminal printed it as a stray "… Fulfilling input required by 'tools/call' (round 1)" line,
    // and `dsh serve` sent it to its client as progress the server never made.
    const updates: unknown[] = []
    const result = await answering(acceptDefaults, () => rig.app.tools.execute({ name: 'mcp__new__ask', arguments: {}, onProgress: (update) => updates.push(update) }))
    expect(result.content).toEqual([{ type: 'text', text: 'Hello Ada' }])
    expect(updates).toEqual([])
  })

  it('parallel calls keep their questions and answers apart', async () => {
    let n = 0
    const texts = await answering(
      () => ({ action: 'accept', content: { name: `caller${++n}` } }),
      () => Promise.all([rig.text('mcp__new__ask'), rig.text('mcp__new__ask'), rig.text('mcp__old__ask')]),
    )
    expect(texts.sort()).toEqual(['Hello caller1', 'Hello caller2', 'Hello caller3'])
  })
})
