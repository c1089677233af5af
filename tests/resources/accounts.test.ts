import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEAREST_ROWS } from '../../src/db/search.ts';
import { AccountSearchList } from '../../src/resources/accounts/schema.ts';
import { newId } from '../../src/shared/ids.ts';
import { Account } from '../../src/workflows/account-view/schema.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, onPostgres, type Response, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

async function createAccount(body: Record<string, unknown>, client = api) {
  const response = await client.post('/v0/accounts', body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expectSchema(Account, response.body);
  return response.body;
}

describe('POST /v0/accounts', () => {
  it('creates an account with a canonical domain, 201 with Location', async () => {
    const response = await api.post('/v0/accounts', {
      domain: 'https://WWW.Initech.example:443/path?q=1',
      name: 'Initech',
    });
    expect(response.status).toBe(201);
    expectSchema(Account, response.body);
    expect(response.headers.get('location')).toBe(`/v0/accounts/${response.body.accountId}`);
    expect(response.body).toMatchObject({
      domain: 'initech.example',
      name: 'Initech',
      latestActivityAt: null,
      linkedPersons: [],
    });
    expect(response.body.accountId).toMatch(/^account_[a-z0-9]{26}$/);
  });

  it('creates an account without a name', async () => {
    expect((await createAccount({ domain: 'nameless.example' })).name).toBeNull();
  });

  it('is 409 when the canonical domain is taken', async () => {
    const first = await createAccount({ domain: 'taken.example' });
    const response = await api.post('/v0/accounts', { domain: 'WWW.TAKEN.example' });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('conflict');
    expect(response.body.detail).toContain(first.accountId);
  });

  it('lets two tenants hold the same domain', async () => {
    await createAccount({ domain: 'shared-tenants.example' });
    await createAccount({ domain: 'shared-tenants.example' }, await server.newTenant());
  });

  it.each([
    ['a missing domain', { name: 'X' }, '/body/domain'],
    ['an empty domain', { domain: '' }, '/body/domain'],
    ['a domain without a dot', { domain: 'localhost' }, '/body/domain'],
    ['an IP address', { domain: '10.0.0.1' }, '/body/domain'],
    ['an empty name', { domain: 'ok.example', name: '' }, '/body/name'],
    ['a name over 255 characters', { domain: 'ok.example', name: 'n'.repeat(256) }, '/body/name'],
    ['an unknown field', { domain: 'ok.example', owner: 'me' }, '/body/owner'],
  ])('rejects %s with 400 and creates nothing', async (_label, body, path) => {
    const before = (await api.get('/v0/accounts/search?limit=1')).body.totalCount;
    const response = await api.post('/v0/accounts', body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect((await api.get('/v0/accounts/search?limit=1')).body.totalCount).toBe(before);
  });
});

describe('GET /v0/accounts/{id}', () => {
  it('returns linked persons, most recently updated first, and the latest activity', async () => {
    const account = await createAccount({ domain: 'linked.example', name: 'Linked' });
    const first = (await api.post('/v0/persons', { name: 'First', email: 'first@linked.example' })).body;
    const second = (await api.post('/v0/persons', { name: 'Second', domain: 'linked.example' })).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await api.patch(`/v0/persons/${first.personId}`, { name: 'First, updated' });
    const response = await api.get(`/v0/accounts/${account.accountId}`);
    expect(response.status).toBe(200);
    expectSchema(Account, response.body);
    expect(response.body.linkedPersons.map((p: { personId: string }) => p.personId)).toEqual([
      first.personId,
      second.personId,
    ]);
    expect(response.body.latestActivityAt).toBeNull();

    const note = (await api.post(`/v0/persons/${second.personId}/logs`, { text: 'Called them' })).body;
    const after = await api.get(`/v0/accounts/${account.accountId}`);
    expect(after.body.latestActivityAt).toBe(note.createdAt);
  });

  it('shows the 100 most recently updated of more linked persons', async () => {
    const account = await createAccount({ domain: 'crowded.example' });
    const person = async (n: number) =>
      (await api.post('/v0/persons', { name: `Person ${n}`, email: `p${n}@crowded.example` })).body;
    const first = await person(0);
    const oldest = await person(1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (let n = 2; n <= 100; n++) await person(n);
    await api.patch(`/v0/persons/${first.personId}`, { name: 'Person 0, updated' });
    const shown = (await api.get(`/v0/accounts/${account.accountId}`)).body.linkedPersons;
    const ids = shown.map((p: { personId: string }) => p.personId);
    expect(ids).toHaveLength(100);
    expect(ids[0]).toBe(first.personId);
    expect(ids).not.toContain(oldest.personId);
  });

  it('linkedPersonsCount and latestActivityAt follow persons as they move to another account and go', async () => {
    const [one, two] = [`one-${Date.now()}.example`, `two-${Date.now()}.example`];
    const first = (await api.post('/v0/persons', { name: 'First', domain: one })).body;
    const second = (await api.post('/v0/persons', { name: 'Second', domain: one })).body;
    const early = (await api.post(`/v0/persons/${first.personId}/logs`, { text: 'Early' })).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const late = (await api.post(`/v0/persons/${second.personId}/logs`, { text: 'Late' })).body;
    const shown = async (domain: string) => {
      const [item] = (await api.get(`/v0/accounts/search?query=${domain}`)).body.items;
      return { count: item.linkedPersonsCount, latest: item.latestActivityAt };
    };
    expect(await shown(one)).toEqual({ count: 2, latest: late.createdAt });

    await api.patch(`/v0/persons/${second.personId}`, { domain: two });
    expect(await shown(one)).toEqual({ count: 1, latest: early.createdAt });
    expect(await shown(two)).toEqual({ count: 1, latest: late.createdAt });

    expect((await api.delete(`/v0/persons/${first.personId}`)).status).toBe(200);
    expect(await shown(one)).toEqual({ count: 0, latest: null });
    const emptyOnly = (await api.get(`/v0/accounts/search?query=${one}&includeEmptyOnly=true`)).body;
    expect(emptyOnly.items.map((item: { domain: string }) => item.domain)).toEqual([one]);
  });

  it('is 404 for an unknown, malformed or foreign id', async () => {
    const foreign = await createAccount({ domain: 'foreign.example' }, await server.newTenant());
    for (const id of ['account_00000000000000000000000000', 'x', foreign.accountId]) {
      const response = await api.get(`/v0/accounts/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
  });
});

describe('PATCH /v0/accounts/{id}', () => {
  it('renames the account and moves updatedAt', async () => {
    const account = await createAccount({ domain: 'rename.example', name: 'Old' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await api.patch(`/v0/accounts/${account.accountId}`, { name: 'New' });
    expect(response.status).toBe(200);
    expectSchema(Account, response.body);
    expect(response.body).toMatchObject({
      name: 'New',
      domain: 'rename.example',
      createdAt: account.createdAt,
    });
    expect(response.body.updatedAt).not.toBe(account.updatedAt);
  });

  it.each([
    ['a missing name', {}, '/body/name'],
    ['a null name', { name: null }, '/body/name'],
    ['an empty name', { name: '' }, '/body/name'],
    ['a name over 255 characters', { name: 'n'.repeat(256) }, '/body/name'],
    ['a domain', { name: 'X', domain: 'other.example' }, '/body/domain'],
  ])('rejects %s with 400 and changes nothing', async (_label, body, path) => {
    const account = await createAccount({
      domain: `stable-${Math.random().toString(36).slice(2)}.example`,
      name: 'Stable',
    });
    const response = await api.patch(`/v0/accounts/${account.accountId}`, body);
    expect(response.status).toBe(400);
    expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect((await api.get(`/v0/accounts/${account.accountId}`)).body).toEqual(account);
  });

  it('accepts a 255-character name', async () => {
    const account = await createAccount({ domain: 'long-name.example' });
    const response = await api.patch(`/v0/accounts/${account.accountId}`, { name: 'n'.repeat(255) });
    expect(response.status).toBe(200);
  });

  it('is 404 for another tenant’s account, which stays', async () => {
    const other = await server.newTenant();
    const foreign = await createAccount({ domain: 'theirs.example', name: 'Theirs' }, other);
    expect((await api.patch(`/v0/accounts/${foreign.accountId}`, { name: 'Mine' })).status).toBe(404);
    expect((await other.get(`/v0/accounts/${foreign.accountId}`)).body.name).toBe('Theirs');
  });
});

describe('GET /v0/accounts/search', () => {
  let tenant: Client;
  beforeAll(async () => {
    tenant = await server.newTenant();
    for (const [domain, name] of [
      ['alpha-widgets.example', 'Alpha Widgets'],
      ['beta.example', 'Beta Gadgets'],
      ['gamma.example', null],
      ['delta-widgets.example', 'Delta'],
    ]) {
      await tenant.post('/v0/accounts', name ? { domain, name } : { domain });
    }
    await tenant.post('/v0/persons', { name: 'P', email: 'p@beta.example' });
  });

  it('lists every account newest first with exact counts', async () => {
    const response = await tenant.get('/v0/accounts/search');
    expect(response.status).toBe(200);
    expectSchema(AccountSearchList, response.body);
    expect(response.body.items.map((a: { domain: string }) => a.domain)).toEqual([
      'delta-widgets.example',
      'gamma.example',
      'beta.example',
      'alpha-widgets.example',
    ]);
    expect(response.body).toMatchObject({ hasMore: false, nextCursor: null, totalCount: 4 });
    expect(
      response.body.items.find((a: { domain: string }) => a.domain === 'beta.example').linkedPersonsCount,
    ).toBe(1);
    expect(response.body.items[0]).not.toHaveProperty('linkedPersons');
  });

  it('matches a case-insensitive substring of name or domain', async () => {
    const names = async (query: string) =>
      (await tenant.get(`/v0/accounts/search?query=${encodeURIComponent(query)}`)).body.items.map(
        (a: { domain: string }) => a.domain,
      );
    expect(await names('WIDGETS')).toEqual(['delta-widgets.example', 'alpha-widgets.example']);
    expect(await names('gadget')).toEqual(['beta.example']);
    expect(await names('mma.ex')).toEqual(['gamma.example']);
    expect(await names('ta')).toEqual(['delta-widgets.example', 'beta.example']);
    expect(await names('zzz')).toEqual([]);
    expect(await names('%')).toEqual([]);
    expect(await names('')).toHaveLength(4);
  });

  it('counts matches in totalCount', async () => {
    const response = await tenant.get('/v0/accounts/search?query=widgets&limit=1');
    expect(response.body).toMatchObject({ totalCount: 2, hasMore: true });
    expect(response.body.items).toHaveLength(1);
  });

  it.each(['true', '1'])('includeEmptyOnly=%s keeps accounts with no linked person', async (value) => {
    const response = await tenant.get(`/v0/accounts/search?includeEmptyOnly=${value}`);
    expect(response.body.items.map((a: { domain: string }) => a.domain)).not.toContain('beta.example');
    expect(response.body.totalCount).toBe(3);
  });

  it.each(['false', '0'])('includeEmptyOnly=%s keeps every account', async (value) => {
    expect((await tenant.get(`/v0/accounts/search?includeEmptyOnly=${value}`)).body.totalCount).toBe(4);
  });

  it.each([
    ['includeEmptyOnly=yes', '/querystring/includeEmptyOnly'],
    [`query=${'q'.repeat(201)}`, '/querystring/query'],
    ['limit=0', '/querystring/limit'],
    ['limit=101', '/querystring/limit'],
    ['limit=2.5', '/querystring/limit'],
    ['limit=ten', '/querystring/limit'],
  ])('rejects %s with 400', async (query, path) => {
    const response = await tenant.get(`/v0/accounts/search?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('ignores unknown query parameters', async () => {
    expect((await tenant.get('/v0/accounts/search?color=blue')).status).toBe(200);
  });

  it('shows nothing of another tenant', async () => {
    const response = await api.get('/v0/accounts/search?query=widgets');
    expect(response.body.items.map((a: { domain: string }) => a.domain)).not.toContain(
      'alpha-widgets.example',
    );
  });
});

describe('GET /v0/accounts/search in a tenant of many accounts', () => {
  /**
   * More accounts than a page of matches is first looked for among (NEAREST_ROWS after the cursor),
   * so that every way to a page is taken: among the newest accounts, among the oldest, and both.
   */
  const TOTAL = NEAREST_ROWS + 500;
  /** The seeded accounts, oldest first. */
  const seeded: { id: string; domain: string; name: string }[] = [];
  /** The newest account with the word Quartz, which has a linked person. */
  const linked = `n${TOTAL - 4}.example`;
  let many: Client;

  const wordsOf = (i: number) =>
    [
      i % 4 === 0 ? 'Quartz' : '',
      i === 2 || i === 5 ? 'Zephyr' : '',
      i >= TOTAL - 3 || (i >= 10 && i < 40) ? 'Split' : '',
      i === 1 ? 'Ärztekammer' : '',
    ]
      .filter(Boolean)
      .join(' ');

  beforeAll(async () => {
    many = await server.newTenant();
    const at = Date.now();
    for (let i = 0; i < TOTAL; i++) {
      seeded.push({
        id: newId('account'),
        domain: `n${i}.example`,
        name: `Account ${i} ${wordsOf(i)}`.trim(),
      });
    }
    // Straight into the database: thousands of accounts through the API would take long.
    const rows = seeded.map((account) => ({
      ...account,
      tenant_id: many.tenantId,
      created_at: at,
      updated_at: at,
    }));
    for (let i = 0; i < rows.length; i += 500) {
      await anyTables(server.database)
        .insertInto('accounts')
        .values(rows.slice(i, i + 500))
        .execute();
    }
    await many.post('/v0/persons', { name: 'Linked', domain: linked });
    // What autovacuum does after so many rows: the planner's sample of the index (see src/db/postgres/search.ts).
    if (onPostgres) await sql`ANALYZE accounts_search`.execute(anyTables(server.database));
    // Another tenant's account with every word counts for nothing here.
    const other = await server.newTenant();
    await other.post('/v0/accounts', { domain: 'quartz-zephyr-split.example', name: 'Quartz Zephyr Split' });
  });

  /** Every page of a search, one after the other: the domains in order, and each page's total. */
  async function everyPage(query: string, limit: number, filters = '') {
    const domains: string[] = [];
    const totals: number[] = [];
    let cursor: string | null = null;
    do {
      const response: Response = await many.get(
        `/v0/accounts/search?query=${encodeURIComponent(query)}&limit=${limit}${filters}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(response.status).toBe(200);
      domains.push(...response.body.items.map((a: { domain: string }) => a.domain));
      totals.push(response.body.totalCount);
      if (response.body.hasMore) expect(response.body.items).toHaveLength(limit);
      cursor = response.body.nextCursor;
    } while (cursor);
    return { domains, totals: [...new Set(totals)] };
  }

  /** The seeded accounts whose name or domain holds `query` (lowercased as the database does), newest first. */
  const holding = (query: string) =>
    seeded
      .filter(({ name, domain }) => `${name}|${domain}`.toLowerCase().includes(query.toLowerCase()))
      .map(({ domain }) => domain)
      .reverse();

  it.each([
    ['a word of every fourth account, its pages among the newest', 'quartz', 100],
    ['a word of two of the oldest accounts alone', 'ZEPHYR', 20],
    ['a word of a few of the newest accounts and more of the oldest', 'split', 20],
    ['a domain of the newest account alone', `n${TOTAL - 1}.ex`, 20],
    ['a query of two characters, which no trigram serves', 'n7', 100],
    ['a word whose case differs beyond ASCII', 'ÄRZTEKAMMER', 20],
    ['words of which one is in every fourth account', 'quartz split', 20],
  ])(
    'pages through %s: every match once, newest first, each page with the exact total',
    async (_label, query, limit) => {
      const expected = holding(query);
      expect(expected.length).toBeGreaterThan(0);
      const { domains, totals } = await everyPage(query, limit);
      expect(domains).toEqual(expected);
      expect(totals).toEqual([expected.length]);
    },
  );

  it('under includeEmptyOnly pages through and counts only the matches without a linked person', async () => {
    const expected = holding('quartz').filter((domain) => domain !== linked);
    const { domains, totals } = await everyPage('quartz', 100, '&includeEmptyOnly=true');
    expect(domains).toEqual(expected);
    expect(totals).toEqual([expected.length]);
  });

  it('never matches across the end of the name and the start of the domain', async () => {
    // Account 3 is at n3.example; PostgreSQL's index holds the two joined by a newline.
    for (const query of ['3\nn3.ex', '3 n3.ex', '3n3.ex']) {
      const response = await many.get(`/v0/accounts/search?query=${encodeURIComponent(query)}`);
      expect(response.body).toMatchObject({ items: [], totalCount: 0 });
    }
  });

  it('finds a renamed account under its new name at once, and no longer under its old one', async () => {
    const account = seeded[6] as (typeof seeded)[number];
    const before = (await many.get('/v0/accounts/search?query=account%206&limit=1')).body.totalCount;
    expect((await many.patch(`/v0/accounts/${account.id}`, { name: 'Borealis' })).status).toBe(200);
    expect((await many.get('/v0/accounts/search?query=borealis')).body).toMatchObject({
      items: [{ accountId: account.id, name: 'Borealis' }],
      totalCount: 1,
    });
    expect((await many.get('/v0/accounts/search?query=account%206&limit=1')).body.totalCount).toBe(
      before - 1,
    );
  });
});
