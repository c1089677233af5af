import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PersonsTables } from '../../src/resources/persons/tables.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { type Client, onPostgres, startServer, type TestServer } from '../helpers/server.ts';

// On SQLite the search indexes take the changes that a group commit's units staged at once, before
// the commit or before a read in the group (migration 0030, src/db/sqlite/driver.ts). A search
// answered after a write's response must find what the write left, whatever else shared its commit.

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

/** The names of the persons a search finds, and its count. */
async function found(query: string): Promise<{ names: string[]; total: number }> {
  const response = await api.get(`/v0/persons?query=${encodeURIComponent(query)}`);
  expect(response.status).toBe(200);
  return {
    names: response.body.items.map((person: { name: string }) => person.name).sort(),
    total: response.body.totalCount,
  };
}

/** How many search changes are staged and not applied (SQLite): none once every write is answered. */
async function stagedChanges(): Promise<number> {
  if (onPostgres) return 0;
  const { rows } = await sql<{ n: number }>`SELECT
      (SELECT count(*) FROM persons_search_changes) + (SELECT count(*) FROM accounts_search_changes) AS n`.execute(
    anyTables(server.database),
  );
  return rows[0]?.n ?? -1;
}

describe('search right after a write', () => {
  it('finds a person created, by the new name once renamed, and not once deleted', async () => {
    const created = await api.post('/v0/persons', { name: 'Hedy Lamarr', email: 'hedy@frequency.example' });
    expect(created.status).toBe(201);
    expect(await found('lamarr')).toEqual({ names: ['Hedy Lamarr'], total: 1 });
    expect(await found('frequency.exa')).toEqual({ names: ['Hedy Lamarr'], total: 1 });

    const { personId } = created.body;
    expect((await api.patch(`/v0/persons/${personId}`, { name: 'Hedy Kiesler' })).status).toBe(200);
    expect(await found('lamarr')).toEqual({ names: [], total: 0 });
    expect(await found('kiesler')).toEqual({ names: ['Hedy Kiesler'], total: 1 });
    expect((await api.patch(`/v0/persons/${personId}`, { email: 'hedy@hopping.example' })).status).toBe(200);
    expect(await found('frequency')).toEqual({ names: [], total: 0 });
    expect(await found('hopping')).toEqual({ names: ['Hedy Kiesler'], total: 1 });

    expect((await api.delete(`/v0/persons/${personId}`)).status).toBe(200);
    expect(await found('kiesler')).toEqual({ names: [], total: 0 });
    expect(await found('hopping')).toEqual({ names: [], total: 0 });
    expect(await stagedChanges()).toBe(0);
  });

  it('finds each of many creates that share commits, searched as each is answered', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `Concurrent Quokka ${String(i).padStart(2, '0')}`);
    // Each search is sent as its create is answered, while the other creates are still being written.
    const searches = await Promise.all(
      names.map(async (name, i) => {
        const created = await api.post('/v0/persons', { name, email: `quokka${i}@shared-group.example` });
        expect(created.status).toBe(201);
        return found(name);
      }),
    );
    searches.forEach((search, i) => {
      expect(search).toEqual({ names: [names[i]], total: 1 });
    });
    expect((await found('concurrent quokka')).total).toBe(names.length);
    const accounts = await api.get('/v0/accounts/search?query=shared-group.example');
    expect(accounts.body.totalCount).toBe(1);
    expect(await stagedChanges()).toBe(0);
  });

  it('leaves out what a failed write of a group staged, and keeps what the others did', async () => {
    expect(
      (await api.post('/v0/persons', { name: 'First Wombat', email: 'wombat@burrow.example' })).status,
    ).toBe(201);
    const answers = await Promise.all([
      api.post('/v0/persons', { name: 'Second Wombat', email: 'second@burrow.example' }),
      // The same email as the first: this create fails on its unique key, after its insert staged.
      api.post('/v0/persons', { name: 'Clashing Wombat', email: 'WOMBAT@burrow.example' }),
      api.post('/v0/persons', { name: 'Third Wombat', email: 'third@burrow.example' }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([201, 409, 201]);
    expect(await found('wombat')).toEqual({
      names: ['First Wombat', 'Second Wombat', 'Third Wombat'],
      total: 3,
    });
    expect(await found('clashing')).toEqual({ names: [], total: 0 });
    expect(await stagedChanges()).toBe(0);
  });

  it.skipIf(onPostgres)(
    'finds a row that a write of the same commit made before it, in a read outside a transaction',
    async () => {
      const db = server.database.forTenant<PersonsTables>(api.tenantId);
      const at = Date.now();
      // Not awaited: the insert opens a group and the count runs in it, before the group commits.
      const insert = db
        .insertInto('persons', {
          id: `person_same_group_${at}`,
          account_id: null,
          name: 'Same Group Numbat',
          email: null,
          email_key: null,
          domain: null,
          domain_given: 0,
          slug: `same-group-numbat-${at}`,
          phone_number: null,
          linkedin_profile_url: null,
          latest_activity_at: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
      const count = db.countSubstringMatches('persons', ['name', 'email'], 'group numbat');
      await insert;
      expect(await count).toBe(1);
    },
  );
});
