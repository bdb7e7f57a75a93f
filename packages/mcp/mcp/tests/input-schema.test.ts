// [PURE] A tool's inputSchema checked against its dialect's meta-schema (draft-04 against draft-04's).
import { describe, expect, it } from 'vitest'
import { inputSchemaProblem } from '../src/input-schema.ts'

const DRAFT_04 = 'http://json-schema.org/draft-04/schema#'

describe('inputSchemaProblem, draft-04', () => {
  it.each([
    ['a boolean exclusiveMinimum', { type: 'object', properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: true } } }],
    ['id, an empty required, a boolean subschema, a type list', { id: 'urn:x', type: 'object', required: [], properties: { a: true, b: { type: ['string', 'null'] } } }],
    ['definitions and $ref', { type: 'object', definitions: { s: { type: 'string' } }, properties: { a: { $ref: '#/definitions/s' } } }],
  ])('passes %s', (_what, schema) => {
    expect(inputSchemaProblem({ $schema: DRAFT_04, ...schema })).toBeUndefined()
  })

  it.each([
    ['a property that is no schema', { type: 'object', properties: { a: 5 } }, 'inputSchema/properties/a must be object (not a valid draft-04 JSON Schema)'],
    ["a number exclusiveMinimum (draft-06's form)", { type: 'object', properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: 0 } } }, 'inputSchema/properties/n/exclusiveMinimum must be boolean (not a valid draft-04 JSON Schema)'],
    ['a type draft-04 does not know', { type: 'object', properties: { n: { type: 'text' } } }, 'inputSchema/properties/n/type must be equal to one of the allowed values (not a valid draft-04 JSON Schema)'],
    ['exclusiveMaximum without maximum', { type: 'object', properties: { n: { type: 'number', exclusiveMaximum: true } } }, 'inputSchema/properties/n must have property maximum when property exclusiveMaximum is present (not a valid draft-04 JSON Schema)'],
  ])('refuses %s', (_what, schema, problem) => {
    expect(inputSchemaProblem({ $schema: DRAFT_04, ...schema })).toBe(problem)
  })

  it('leaves a dialect it has no meta-schema for unchecked', () => {
    expect(inputSchemaProblem({ $schema: 'http://json-schema.org/draft-03/schema#', type: 'object', properties: { a: 5 } })).toBeUndefined()
  })
})
