/**
 * The draft-04 meta-schema (json-schema.org/draft-04/schema), as the SDK's draft-07 AJV compiles it
 * (input-schema.ts checks a tool's `inputSchema` that declares draft-04 against it). Changed from the
 * published one only where draft-07 reads it otherwise or where a later dialect's reader (a model
 * API) takes what draft-04 forbids:
 * - no `id`, `$schema` or `format` (draft-07 would read `id` as a name and log unknown formats);
 *   `multipleOf`'s `exclusiveMinimum: true` is draft-07's `exclusiveMinimum: 0`;
 * - a subschema may also be `true` or `false`, as in every later dialect;
 * - `required` may be empty (draft-04 wants at least one name; later dialects allow none).
 * What it refuses is a value that is no draft-04 schema: `properties: { a: 5 }`, `required: "a"`,
 * `exclusiveMinimum: 0` (a number: draft-06's form, which draft-04 readers reject), `type: "text"`.
 */
const schema = { anyOf: [{ $ref: '#' }, { type: 'boolean' }] }
const schemaArray = { type: 'array', minItems: 1, items: schema }
const positiveInteger = { type: 'integer', minimum: 0 }
const simpleTypes = { enum: ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] }
const stringArray = { type: 'array', items: { type: 'string' }, uniqueItems: true }
const schemaMap = { type: 'object', additionalProperties: schema }

export const DRAFT_04_META_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    description: { type: 'string' },
    multipleOf: { type: 'number', exclusiveMinimum: 0 },
    maximum: { type: 'number' },
    exclusiveMaximum: { type: 'boolean' },
    minimum: { type: 'number' },
    exclusiveMinimum: { type: 'boolean' },
    maxLength: positiveInteger,
    minLength: positiveInteger,
    pattern: { type: 'string' },
    additionalItems: schema,
    items: { anyOf: [schema, schemaArray] },
    maxItems: positiveInteger,
    minItems: positiveInteger,
    uniqueItems: { type: 'boolean' },
    maxProperties: positiveInteger,
    minProperties: positiveInteger,
    required: stringArray,
    additionalProperties: schema,
    definitions: schemaMap,
    properties: schemaMap,
    patternProperties: schemaMap,
    dependencies: { type: 'object', additionalProperties: { anyOf: [schema, stringArray] } },
    enum: { type: 'array', minItems: 1, uniqueItems: true },
    type: { anyOf: [simpleTypes, { type: 'array', items: simpleTypes, minItems: 1, uniqueItems: true }] },
    allOf: schemaArray,
    anyOf: schemaArray,
    oneOf: schemaArray,
    not: schema,
  },
  dependencies: { exclusiveMaximum: ['maximum'], exclusiveMinimum: ['minimum'] },
}
