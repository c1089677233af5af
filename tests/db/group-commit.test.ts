import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyTables } from '../helpers/any-tables.ts';
import { type Client, onPostgres, startServer, type TestServer } from '../helpers/server.ts';

// SQLite's writes of one event-loop turn share a commit (src/db/sqlite/driver.ts). Each request
// must still be its own unit: one that fails leaves the others of its commit whole, and nothing is
// answered before the commit that holds it is on disk (synchronous FULL; the kill -9 test in
// tests/cli/consistency.test.ts checks what that promises).

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

describe('writes that share a commit', () => {
  it.skipIf(onPostgres)('are durable: WAL with synchronous FULL', async () => {
    const pragma = async (name: string) =>
      Object.values(
        ((await sql.raw(`PRAGMA ${name}`).execute(anyTables(server.database))).rows[0] ?? {}) as object,
      )[0];
    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('synchronous')).toBe(2);
  });

  it('each succeed or fail alone: 200 creates at once, every second one a duplicate email', async () => {
    const before = (await api.get('/v0/accounts/search?query=shared-commit')).body.totalCount;
    expect(before).toBe(0);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        api.post('/v0/persons', {
          name: `Shared ${i}`,
          email: `p${Math.floor(i / 2)}@shared-commit.example`,
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(100);
    expect(statuses.filter((status) => status === 409)).toHaveLength(100);

    const created = answers.filter((answer) => answer.status === 201).map((answer) => answer.body.personId);
    for (const id of created) expect((await api.get(`/v0/persons/${id}`)).status).toBe(200);
    const account = (await api.get('/v0/accounts/search?query=shared-commit')).body;
    expect(account.totalCount).toBe(1);
    expect(account.items[0].linkedPersonsCount).toBe(100);
  });

  it('reads alongside them answer only what their units kept: an account with creates failing and not', async () => {
    const first = await api.post('/v0/persons', { name: 'First', email: 'first@read-along.example' });
    expect(first.status).toBe(201);
    const { items } = (await api.get('/v0/accounts/search?query=read-along')).body;
    const path = `/v0/accounts/${items[0].accountId}`;
    // Creates that fail on their email (409, each rolled back alone), creates that succeed and reads
    // of their account, all at once: SQLite runs a read at once only with no group open.
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => {
        if (i % 3 === 0)
          return api.post('/v0/persons', { name: `Dup ${i}`, email: 'first@read-along.example' });
        if (i % 3 === 1)
          return api.post('/v0/persons', { name: `New ${i}`, email: `n${i}@read-along.example` });
        return api.get(path);
      }),
    );
    const created = new Set(['First']);
    answers.forEach((answer, i) => {
      if (i % 3 === 0) expect(answer.status).toBe(409);
      if (i % 3 === 1) created.add(answer.body.name);
    });
    for (const read of answers.filter((_, i) => i % 3 === 2)) {
      expect(read.status).toBe(200);
      for (const person of read.body.linkedPersons) expect(created.has(person.name)).toBe(true);
    }
    const after = (await api.get(path)).body.linkedPersons.map((person: { name: string }) => person.name);
    expect(new Set(after)).toEqual(created);
  });

  it('a failed write in the middle of others changes nothing of its own', async () => {
    const { personId } = (await api.post('/v0/persons', { name: 'Kept', email: 'kept@unit.example' })).body;
    const answers = await Promise.all([
      api.patch(`/v0/persons/${personId}`, { name: 'Renamed' }),
      api.post('/v0/persons', { name: 'Clash', email: 'kept@unit.example' }),
      api.patch(`/v0/persons/${personId}`, { phoneNumber: '+15550100' }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 409, 200]);
    const person = (await api.get(`/v0/persons/${personId}`)).body;
    expect(person).toMatchObject({ name: 'Renamed', phoneNumber: '+15550100', email: 'kept@unit.example' });
  });
});
