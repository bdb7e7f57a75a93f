// SEP-2243 (issue 28 item 3): x-mcp-header declarations and the Mcp-Param-* headers of a call.
// The conformance scenarios http-custom-headers and http-invalid-tool-headers check the wire with
// plain ASCII values; these pin the encoding rules and each reason a declaration is refused.
import { describe, expect, it } from 'vitest'
import { declaredHeaderParameters, parameterHeaders } from '../src/x-mcp-header.ts'

const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties })

describe('x-mcp-header', () => {
  it('mirrors string, integer and boolean parameters; non-ASCII, padded or empty values go base64; null and absent send nothing', () => {
    const declared = declaredHeaderParameters(
      schema({
        region: { type: 'string', 'x-mcp-header': 'Region' },
        priority: { type: 'integer', 'x-mcp-header': 'Priority' },
        urgent: { type: 'boolean', 'x-mcp-header': 'Urgent' },
        city: { type: 'string', 'x-mcp-header': 'City' },
        note: { type: 'string', 'x-mcp-header': 'Note' },
        gone: { type: 'string', 'x-mcp-header': 'Gone' },
        nested: { type: 'object', properties: { tenant: { type: 'string', 'x-mcp-header': 'Tenant' } } },
      }),
    )
    expect('parameters' in declared && declared.parameters.map((parameter) => parameter.header)).toEqual(['Region', 'Priority', 'Urgent', 'City', 'Note', 'Gone', 'Tenant'])
    const headers = parameterHeaders('parameters' in declared ? declared.parameters : [], { region: 'eu-west', priority: 3, urgent: false, city: 'Zürich', note: ' padded ', gone: null, nested: { tenant: 'acme' } })
    expect(headers).toEqual({
      'Mcp-Param-Region': 'eu-west',
      'Mcp-Param-Priority': '3',
      'Mcp-Param-Urgent': 'false',
      'Mcp-Param-City': `=?base64?${Buffer.from('Zürich').toString('base64')}?=`,
      'Mcp-Param-Note': `=?base64?${Buffer.from(' padded ').toString('base64')}?=`,
      'Mcp-Param-Tenant': 'acme',
    })
  })

  it.each([
    ['an array property', schema({ tags: { type: 'array', 'x-mcp-header': 'Tags' } }), /string, integer or boolean/],
    ['a number property', schema({ ratio: { type: 'number', 'x-mcp-header': 'Ratio' } }), /string, integer or boolean/],
    ['a name with a colon', schema({ a: { type: 'string', 'x-mcp-header': 'X:Y' } }), /not an HTTP header token/],
    ['an empty name', schema({ a: { type: 'string', 'x-mcp-header': '' } }), /non-empty string/],
    ['a name twice, in another case', schema({ a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'region' } }), /declared twice/],
    ['a declaration under items', schema({ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }), /reached through "properties" alone/],
  ])('refuses %s', (_what, inputSchema, reason) => {
    const declared = declaredHeaderParameters(inputSchema)
    expect('invalid' in declared && declared.invalid).toMatch(reason)
  })
})
