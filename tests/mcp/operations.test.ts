import { describe, expect, it } from 'vitest';
import { findOperation, pathProblem, requestParts } from '../../src/mcp/operations.ts';

const NAME = { type: 'string', minLength: 1 };

/** A document of the shapes the served one has: components, path and query parameters, bodies. */
function documentWith(operation: Record<string, unknown>, schemas: Record<string, unknown> = {}) {
  return {
    components: {
      schemas: { Name: NAME, Thing: THING, ...schemas },
      parameters: { IdempotencyKey: { name: 'Idempotency-Key', in: 'header', schema: { type: 'string' } } },
    },
    paths: { '/v0/things/{thing_id}': { patch: { operationId: 'updateThing', ...operation } } },
  };
}

const THING = { type: 'object', properties: { thingId: { type: 'string' }, name: NAME } };

const UPDATE = {
  description: 'Renames a thing.',
  parameters: [
    { name: 'thing_id', in: 'path', required: true, schema: { type: 'string' } },
    { name: 'dryRun', in: 'query', description: 'Check only', schema: { type: 'boolean' } },
    { $ref: '#/components/parameters/IdempotencyKey' },
  ],
  responses: {
    '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
    '404': { content: { 'application/problem+json': { schema: { type: 'object' } } } },
  },
  requestBody: {
    required: true,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['name'],
          properties: { name: { $ref: '#/components/schemas/Name' }, note: { type: 'string' } },
        },
      },
    },
  },
};

describe('an operation read from the OpenAPI document', () => {
  it('takes its path and query parameters and its body fields side by side, references inlined', () => {
    const operation = findOperation(documentWith(UPDATE), 'updateThing');
    expect(operation).toMatchObject({ method: 'patch', path: '/v0/things/{thing_id}', hasBody: true });
    expect(operation.description).toBe('Renames a thing.');
    expect(operation.inputSchema).toEqual({
      type: 'object',
      properties: {
        thing_id: { type: 'string' },
        dryRun: { type: 'boolean', description: 'Check only' },
        name: NAME,
        note: { type: 'string' },
      },
      required: ['thing_id', 'name'],
      additionalProperties: false,
    });
  });

  it('answers the JSON object of its success, references inlined', () => {
    expect(findOperation(documentWith(UPDATE), 'updateThing').outputSchema).toEqual({
      type: 'object',
      properties: { thingId: { type: 'string' }, name: NAME },
    });
  });

  it('sorts arguments back into the path, encoded, the query and the body', () => {
    const operation = findOperation(documentWith(UPDATE), 'updateThing');
    expect(requestParts(operation, { thing_id: 't1', dryRun: true, name: 'New', note: 'n' })).toEqual({
      path: '/v0/things/t1',
      query: { dryRun: true },
      body: { name: 'New', note: 'n' },
    });
    expect(requestParts(operation, { thing_id: 'a?b#c d%', name: 'New' }).path).toBe(
      '/v0/things/a%3Fb%23c%20d%25',
    );
  });

  it('never makes a path that names another endpoint: "", ".", ".." and separators are refused', () => {
    const operation = findOperation(documentWith(UPDATE), 'updateThing');
    for (const thing_id of ['', '.', '..', 't1/publish', '..\\x'])
      expect(() => requestParts(operation, { thing_id, name: 'New' }), thing_id).toThrow(
        /^thing_id must be an id, not .*, which would call another endpoint$/,
      );
    expect(pathProblem('page_01')).toBeUndefined();
  });

  it('requires no body field when the body itself is optional', () => {
    const optional = { ...UPDATE, requestBody: { ...UPDATE.requestBody, required: false } };
    expect(findOperation(documentWith(optional), 'updateThing').inputSchema.required).toEqual(['thing_id']);
  });

  it('refuses what it cannot offer an agent: a name twice, a body that is no object, a loop, no such id, an answer that is no object', () => {
    const clash = { ...UPDATE, parameters: [{ name: 'name', in: 'query', schema: NAME }] };
    expect(() => findOperation(documentWith(clash), 'updateThing')).toThrow('two inputs are named name');
    const list = { requestBody: { content: { 'application/json': { schema: { type: 'array' } } } } };
    expect(() => findOperation(documentWith(list), 'updateThing')).toThrow('not an object of named fields');
    const loop = {
      requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } },
    };
    const node = { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } };
    expect(() => findOperation(documentWith(loop, { Node: node }), 'updateThing')).toThrow(
      'Node refers to itself',
    );
    expect(() => findOperation(documentWith(UPDATE), 'deleteThing')).toThrow('no operation deleteThing');
    const listed = {
      ...UPDATE,
      responses: { '200': { content: { 'application/json': { schema: { type: 'array' } } } } },
    };
    expect(() => findOperation(documentWith(listed), 'updateThing')).toThrow('answers no JSON object');
  });
});
