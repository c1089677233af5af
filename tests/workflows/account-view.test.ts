import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connection.ts';
import { Account } from '../../src/workflows/account-view/schema.ts';
import { QueryCounter } from '../helpers/query-counter.ts';
import { expectSchema } from '../helpers/schema.ts';
import { Client, onPostgres, startServer, type TestServer, testDatabaseUrl } from '../helpers/server.ts';

/**
 * An account view is read once for all the requests of a turn of the event loop that ask for it
 * (src/workflows/account-view/service.ts, AccountViews): every change to what it shows is still
 * seen by the next request, on this node and on another, and no tenant sees another's account.
 */

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-account-view-'));
/** A connection of its own to this file's database: one per node. */
const connect = async () =>
  openDatabase({ databaseUrl: onPostgres ? await testDatabaseUrl() : undefined, dataDir });

const queries = new QueryCounter();
let server: TestServer;
/** A second node on the same database, through a connection of its own. */
let other: TestServer;
/** A third, whose statements are counted (it reads through Kysely: no read at once on SQLite). */
let counted: TestServer;
let api: Client;
let onOther: Client;

beforeAll(async () => {
  server = await startServer({ database: await connect() });
  other = await startServer({ database: await connect() });
  counted = await startServer({ database: (await connect()).withPlugin(queries) });
  api = await server.newTenant();
  onOther = new Client(other.url, api.apiKey, api.tenantId);
});
afterAll(async () => {
  for (const node of [server, other, counted]) {
    await node.close();
    await node.database.close();
  }
});

let domains = 0;

function ok<T extends { status: number; body: unknown }>(response: T, status = 200): T {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response;
}

async function newAccount(client = api): Promise<{ accountId: string; domain: string }> {
  const domain = `view-${++domains}-${Date.now()}.example`;
  return ok(await client.post('/v0/accounts', { domain, name: 'Before' }), 201).body;
}

/** GET /v0/accounts/{id} through `client`, as the next request after what the test did. */
async function view(accountId: string, client = api): Promise<Account> {
  const response = ok(await client.get(`/v0/accounts/${accountId}`));
  expectSchema(Account, response.body);
  return response.body;
}

/** GETs of `accountId` on `node` without pause until stopped: reads shared with them are under way. */
function keepReading(node: TestServer, accountId: string) {
  const client = new Client(node.url, api.apiKey, api.tenantId);
  let reading = true;
  const streams = Array.from({ length: 8 }, async () => {
    while (reading) ok(await client.get(`/v0/accounts/${accountId}`));
  });
  return async () => {
    reading = false;
    await Promise.all(streams);
  };
}

const names = (account: Account) => account.linkedPersons.map((person) => person.name);

describe('an account view, read once for the requests of a turn', () => {
  it('is read once by the requests of one turn, and they all get it', async () => {
    const client = await counted.newTenant();
    const { accountId } = ok(await client.post('/v0/accounts', { domain: 'counted.example' }), 201).body;
    ok(await client.post('/v0/persons', { name: 'Counted', domain: 'counted.example' }), 201);
    const ask = () =>
      counted.app.inject({ url: `/v0/accounts/${accountId}`, headers: { 'x-api-key': client.apiKey ?? '' } });
    // The key is read once and then kept; what is counted below is the view alone.
    expect((await ask()).statusCode).toBe(200);
    queries.count = 0;
    // In the process, so that the ten arrive in one turn.
    const answers = await Promise.all(Array.from({ length: 10 }, ask));
    expect(answers.every((answer) => answer.statusCode === 200)).toBe(true);
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect(JSON.parse(answers[0]?.body ?? '').linkedPersons[0].name).toBe('Counted');
    // The account and its persons.
    expect(queries.count).toBe(2);
  });

  it('is 404 to another tenant asking for the same id in the same turn', async () => {
    const { accountId } = await newAccount();
    const stranger = await server.newTenant();
    const ask = (client: Client) =>
      server.app.inject({ url: `/v0/accounts/${accountId}`, headers: { 'x-api-key': client.apiKey ?? '' } });
    // Both keys are read once and then kept, so that the four below ask in one turn.
    expect((await ask(stranger)).statusCode).toBe(404);
    const answers = await Promise.all([ask(api), ask(stranger), ask(api), ask(stranger)]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 404, 200, 404]);
    expect(JSON.parse(answers[1]?.body ?? '').code).toBe('not_found');
  });
});

describe('what the next request sees, while others read the same account', () => {
  // Each change is made through one node while both keep reading the account, then the next
  // request to each node must show it.
  for (const [where, through] of [
    ['made on this node', 'this'],
    ['made on another node', 'other'],
  ] as const) {
    const writer = () => (through === 'this' ? api : onOther);

    it(`a rename, ${where}`, async () => {
      const { accountId } = await newAccount();
      await view(accountId);
      const stop = [keepReading(server, accountId), keepReading(other, accountId)];
      try {
        ok(await writer().patch(`/v0/accounts/${accountId}`, { name: 'After' }));
        expect((await view(accountId)).name).toBe('After');
        expect((await view(accountId, onOther)).name).toBe('After');
      } finally {
        await Promise.all(stop.map((end) => end()));
      }
    });

    it(`a linked person created, updated, moved away, moved back and deleted, ${where}`, async () => {
      const { accountId, domain } = await newAccount();
      await view(accountId);
      const stop = [keepReading(server, accountId), keepReading(other, accountId)];
      const seen = async () => [names(await view(accountId)), names(await view(accountId, onOther))];
      try {
        const person = ok(await writer().post('/v0/persons', { name: 'Ada', domain }), 201).body;
        expect(await seen()).toEqual([['Ada'], ['Ada']]);
        ok(await writer().patch(`/v0/persons/${person.personId}`, { name: 'Ada, updated' }));
        expect(await seen()).toEqual([['Ada, updated'], ['Ada, updated']]);
        ok(await writer().patch(`/v0/persons/${person.personId}`, { domain: `elsewhere-${domain}` }));
        expect(await seen()).toEqual([[], []]);
        ok(await writer().patch(`/v0/persons/${person.personId}`, { domain }));
        expect(await seen()).toEqual([['Ada, updated'], ['Ada, updated']]);
        ok(await writer().delete(`/v0/persons/${person.personId}`));
        expect(await seen()).toEqual([[], []]);
      } finally {
        await Promise.all(stop.map((end) => end()));
      }
    });

    it(`a linked person’s activity, ${where}`, async () => {
      const { accountId, domain } = await newAccount();
      const person = ok(await api.post('/v0/persons', { name: 'Active', domain }), 201).body;
      expect((await view(accountId)).latestActivityAt).toBeNull();
      const stop = [keepReading(server, accountId), keepReading(other, accountId)];
      try {
        const note = ok(
          await writer().post(`/v0/persons/${person.personId}/logs`, { text: 'Called' }),
          201,
        ).body;
        for (const client of [api, onOther]) {
          expect((await view(accountId, client)).latestActivityAt).toBe(note.createdAt);
        }
      } finally {
        await Promise.all(stop.map((end) => end()));
      }
    });
  }
});
