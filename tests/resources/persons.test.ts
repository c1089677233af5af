import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Person, PersonList } from '../../src/resources/persons/schema.ts';
import { Account } from '../../src/workflows/account-view/schema.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';
import { ABSOLUTE_URLS, NOT_ABSOLUTE, SCRIPT_URLS } from '../helpers/urls.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

async function createPerson(body: Record<string, unknown>) {
  const response = await api.post('/v0/persons', body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expectSchema(Person, response.body);
  return response.body;
}

describe('POST /v0/persons', () => {
  it('creates a person with every field, 201 with Location', async () => {
    const response = await api.post('/v0/persons', {
      name: 'Ada Lovelace',
      email: 'Ada@Analytical.example.com',
      phoneNumber: '+442071234567',
      linkedinProfileUrl: 'https://www.linkedin.com/in/ada',
    });
    expect(response.status).toBe(201);
    expectSchema(Person, response.body);
    expect(response.headers.get('location')).toBe(`/v0/persons/${response.body.personId}`);
    expect(response.body).toMatchObject({
      name: 'Ada Lovelace',
      email: 'Ada@Analytical.example.com',
      domain: 'analytical.example.com',
      slug: 'ada-lovelace',
      phoneNumber: '+442071234567',
      linkedinProfileUrl: 'https://www.linkedin.com/in/ada',
    });
    expect(response.body.personId).toMatch(/^person_[a-z0-9]{26}$/);
    expect(response.body.createdAt).toMatch(/^\+[1-9]\d{1,14}$/);
    expect(response.body.createdAt).toBe(response.body.updatedAt);
  });

  it('creates a person with only a name: the optional fields are null', async () => {
    const person = await createPerson({ name: 'Only Name' });
    expect(person).toMatchObject({ email: null, domain: null, phoneNumber: null, linkedinProfileUrl: null });
  });

  it('prefers the given domain over the email domain, canonicalized', async () => {
    const person = await createPerson({
      name: 'Grace',
      email: 'grace@navy.example.org',
      domain: 'HTTPS://WWW.Cobol.Example.com:8443/about',
    });
    expect(person.domain).toBe('cobol.example.com');
  });

  it('links the person to the account of the domain, creating it with a null name', async () => {
    const person = await createPerson({ name: 'Linus', email: 'linus@kernel-linked.example' });
    const search = await api.get('/v0/accounts/search?query=kernel-linked.example');
    expect(search.body.items).toHaveLength(1);
    expect(search.body.items[0]).toMatchObject({
      domain: 'kernel-linked.example',
      name: null,
      linkedPersonsCount: 1,
    });
    const account = await api.get(`/v0/accounts/${search.body.items[0].accountId}`);
    expectSchema(Account, account.body);
    expect(account.body.linkedPersons.map((p: { personId: string }) => p.personId)).toEqual([
      person.personId,
    ]);
  });

  it('links a second person of the same domain to the same account', async () => {
    await createPerson({ name: 'A', email: 'a@shared-domain.example' });
    await createPerson({ name: 'B', domain: 'www.shared-domain.example' });
    const search = await api.get('/v0/accounts/search?query=shared-domain.example');
    expect(search.body.items).toHaveLength(1);
    expect(search.body.items[0].linkedPersonsCount).toBe(2);
  });

  it('links concurrent creates at a new domain to one account, which counts them all', async () => {
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.post('/v0/persons', { name: `Racer ${i}`, email: `racer${i}@race-domain.example` }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(6).fill(201));
    const search = await api.get('/v0/accounts/search?query=race-domain.example');
    expect(search.body.items).toHaveLength(1);
    expect(search.body.items[0].linkedPersonsCount).toBe(6);
  });

  it('converts an internationalized domain to punycode', async () => {
    const person = await createPerson({ name: 'Jürgen', domain: 'Bücher.example' });
    expect(person.domain).toBe('xn--bcher-kva.example');
  });

  it('assigns unique slugs from the name: -2, -3 when taken', async () => {
    const slugs = [];
    for (let i = 0; i < 3; i++) slugs.push((await createPerson({ name: 'Zoë  O’Brien!' })).slug);
    expect(slugs).toEqual(['zoe-o-brien', 'zoe-o-brien-2', 'zoe-o-brien-3']);
  });

  it('numbers slugs on past the first few taken ones, in order', async () => {
    const slugs = [];
    for (let i = 0; i < 24; i++) slugs.push((await createPerson({ name: 'Many Times' })).slug);
    expect(slugs).toEqual(['many-times', ...Array.from({ length: 23 }, (_, i) => `many-times-${i + 2}`)]);
  });

  it('gives a slug to a name with no letters', async () => {
    expect((await createPerson({ name: '!!!' })).slug).toMatch(/^person(-\d+)?$/);
  });

  it('keeps unique slugs under concurrent creates, each the first free one', async () => {
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => api.post('/v0/persons', { name: 'Same Name' })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(responses.map((r) => r.body.slug).sort()).toEqual(
      ['same-name', ...Array.from({ length: 5 }, (_, i) => `same-name-${i + 2}`)].sort(),
    );
  });

  it('gives a slug freed by a delete to the next person of that name', async () => {
    await createPerson({ name: 'Freed' });
    const second = await createPerson({ name: 'Freed' });
    await createPerson({ name: 'Freed' });
    expect((await api.delete(`/v0/persons/${second.personId}`)).status).toBe(200);
    expect((await createPerson({ name: 'Freed' })).slug).toBe('freed-2');
  });

  it('rejects a second person with the same email, case-insensitively, naming the holder', async () => {
    const first = await createPerson({ name: 'First', email: 'dup@unique.example' });
    const second = await api.post('/v0/persons', { name: 'Second', email: 'DUP@Unique.Example' });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('conflict');
    expect(second.body.detail).toContain(first.personId);
  });

  it('lets one of concurrent creates with the same email have it, and refuses the others naming it', async () => {
    const responses = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        api.post('/v0/persons', { name: `Racer ${i}`, email: 'race@unique.example' }),
      ),
    );
    const created = responses.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const refused of responses.filter((r) => r.status !== 201)) {
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toContain(created[0]?.body.personId);
    }
  });

  it.each([
    ['a missing name', { email: 'x@y.example' }, '/body/name'],
    ['an empty name', { name: '' }, '/body/name'],
    ['a name over 255 characters', { name: 'x'.repeat(256) }, '/body/name'],
    ['a non-string name', { name: 42 }, '/body/name'],
    ['an email that is not an address', { name: 'N', email: 'not-an-email' }, '/body/email'],
    ['an email domain without a dot', { name: 'N', email: 'n@localhost' }, '/body/email'],
    ['an empty domain', { name: 'N', domain: '' }, '/body/domain'],
    ['a domain without a dot', { name: 'N', domain: 'intranet' }, '/body/domain'],
    ['a phone number without +', { name: 'N', phoneNumber: '4155550100' }, '/body/phoneNumber'],
    ['a phone number starting +0', { name: 'N', phoneNumber: '+0155550100' }, '/body/phoneNumber'],
    ['a phone number over 15 digits', { name: 'N', phoneNumber: '+1234567890123456' }, '/body/phoneNumber'],
    ['an empty LinkedIn URL', { name: 'N', linkedinProfileUrl: '' }, '/body/linkedinProfileUrl'],
    ['a slug', { name: 'N', slug: 'chosen' }, '/body/slug'],
    ['an unknown field', { name: 'N', nickname: 'x' }, '/body/nickname'],
    ['a null email', { name: 'N', email: null }, '/body/email'],
  ])('rejects %s with 400 and creates nothing', async (_label, body, path) => {
    const before = (await api.get('/v0/persons?limit=1')).body.totalCount;
    const response = await api.post('/v0/persons', body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect((await api.get('/v0/persons?limit=1')).body.totalCount).toBe(before);
  });

  it('accepts the boundary values', async () => {
    const person = await createPerson({
      name: 'x'.repeat(255),
      phoneNumber: '+12',
      linkedinProfileUrl: 'http://x',
    });
    expect(person.name).toHaveLength(255);
  });
});

describe('GET /v0/persons/{id}', () => {
  it('returns the person', async () => {
    const person = await createPerson({ name: 'Get Me' });
    const response = await api.get(`/v0/persons/${person.personId}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(person);
  });

  it('is 404 for an unknown, malformed or foreign id', async () => {
    const other = await server.newTenant();
    const foreign = (await other.post('/v0/persons', { name: 'Foreign' })).body.personId;
    for (const id of ['person_00000000000000000000000000', 'nonsense', foreign]) {
      const response = await api.get(`/v0/persons/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
  });
});

describe('PATCH /v0/persons/{id}', () => {
  it('changes only the given fields and moves updatedAt', async () => {
    const person = await createPerson({
      name: 'Before',
      phoneNumber: '+15550000001',
      linkedinProfileUrl: 'https://www.linkedin.com/in/li',
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await api.patch(`/v0/persons/${person.personId}`, { name: 'After' });
    expect(response.status).toBe(200);
    expectSchema(Person, response.body);
    expect(response.body).toMatchObject({
      name: 'After',
      phoneNumber: '+15550000001',
      linkedinProfileUrl: 'https://www.linkedin.com/in/li',
    });
    expect(response.body.slug).toBe(person.slug);
    expect(Number(response.body.updatedAt.slice(1))).toBeGreaterThan(Number(person.updatedAt.slice(1)));
    expect(response.body.createdAt).toBe(person.createdAt);
  });

  it('clears nullable fields with null', async () => {
    const person = await createPerson({
      name: 'Clear',
      email: 'clear@clearing.example',
      phoneNumber: '+15550000002',
      linkedinProfileUrl: 'https://www.linkedin.com/in/li',
    });
    const response = await api.patch(`/v0/persons/${person.personId}`, {
      email: null,
      phoneNumber: null,
      linkedinProfileUrl: null,
    });
    expect(response.body).toMatchObject({
      email: null,
      domain: null,
      phoneNumber: null,
      linkedinProfileUrl: null,
    });
  });

  it('follows a new email domain unless a domain was given', async () => {
    const derived = await createPerson({ name: 'Derived', email: 'd@old-derived.example' });
    const moved = await api.patch(`/v0/persons/${derived.personId}`, { email: 'd@new-derived.example' });
    expect(moved.body.domain).toBe('new-derived.example');
    const oldAccount = await api.get('/v0/accounts/search?query=old-derived.example');
    expect(oldAccount.body.items[0].linkedPersonsCount).toBe(0);
    const newAccount = await api.get('/v0/accounts/search?query=new-derived.example');
    expect(newAccount.body.items[0].linkedPersonsCount).toBe(1);

    const given = await createPerson({
      name: 'Given',
      email: 'g@mail-given.example',
      domain: 'company-given.example',
    });
    const kept = await api.patch(`/v0/persons/${given.personId}`, { email: 'g@other-given.example' });
    expect(kept.body.domain).toBe('company-given.example');
    const dropped = await api.patch(`/v0/persons/${given.personId}`, { domain: null });
    expect(dropped.body.domain).toBe('other-given.example');
  });

  it('rejects taking another person’s email with 409 and changes nothing', async () => {
    await createPerson({ name: 'Holder', email: 'held@emails.example' });
    const person = await createPerson({ name: 'Taker', email: 'taker@emails.example' });
    const response = await api.patch(`/v0/persons/${person.personId}`, { email: 'HELD@emails.example' });
    expect(response.status).toBe(409);
    expect((await api.get(`/v0/persons/${person.personId}`)).body).toEqual(person);
  });

  it('lets a person keep their own email in another case', async () => {
    const person = await createPerson({ name: 'Case', email: 'case@emails.example' });
    const response = await api.patch(`/v0/persons/${person.personId}`, { email: 'CASE@emails.example' });
    expect(response.status).toBe(200);
    expect(response.body.email).toBe('CASE@emails.example');
  });

  it.each([
    ['a null name', { name: null }, '/body/name'],
    ['an empty name', { name: '' }, '/body/name'],
    ['a long name', { name: 'y'.repeat(256) }, '/body/name'],
    ['an empty domain', { domain: '' }, '/body/domain'],
    ['a bad phone number', { phoneNumber: '555' }, '/body/phoneNumber'],
    ['an empty LinkedIn URL', { linkedinProfileUrl: '' }, '/body/linkedinProfileUrl'],
    ['a bad email', { email: 'nope' }, '/body/email'],
    ['a slug', { slug: 'x' }, '/body/slug'],
  ])('rejects %s with 400 and changes nothing', async (_label, body, path) => {
    const person = await createPerson({ name: 'Stable', phoneNumber: '+15550000003' });
    const response = await api.patch(`/v0/persons/${person.personId}`, body);
    expect(response.status).toBe(400);
    expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect((await api.get(`/v0/persons/${person.personId}`)).body).toEqual(person);
  });

  it('is 404 for another tenant’s person', async () => {
    const other = await server.newTenant();
    const foreign = (await other.post('/v0/persons', { name: 'Foreign' })).body;
    const response = await api.patch(`/v0/persons/${foreign.personId}`, { name: 'Hijacked' });
    expect(response.status).toBe(404);
    expect((await other.get(`/v0/persons/${foreign.personId}`)).body.name).toBe('Foreign');
  });
});

describe('GET /v0/persons', () => {
  it('lists newest first and filters by email', async () => {
    const tenant = await server.newTenant();
    const ids = [];
    for (const name of ['P1', 'P2', 'P3']) {
      ids.push(
        (await tenant.post('/v0/persons', { name, email: `${name.toLowerCase()}@list.example` })).body
          .personId,
      );
    }
    const list = await tenant.get('/v0/persons');
    expectSchema(PersonList, list.body);
    expect(list.body.items.map((p: { personId: string }) => p.personId)).toEqual(ids.reverse());
    expect(list.body.totalCount).toBe(3);
    const one = await tenant.get('/v0/persons?email=P2@LIST.example');
    expect(one.body.items.map((p: { name: string }) => p.name)).toEqual(['P2']);
  });

  it('keeps the persons whose name or email holds `query`, any case, counted and paged', async () => {
    const tenant = await server.newTenant();
    const other = await server.newTenant();
    await other.post('/v0/persons', { name: 'Grace Other', email: 'grace@other.example' });
    for (const [name, email] of [
      ['Grace Hopper', 'grace@navy.example'],
      ['Ada Lovelace', 'ada@analytical.example'],
      ['Alan Turing 100%_', 'alan@grace.example'],
      ['Barbara Liskov', 'barbara@mit.example'],
    ]) {
      await tenant.post('/v0/persons', { name, email });
    }
    const names = async (url: string) => {
      const response = await tenant.get(url);
      expect(response.status).toBe(200);
      return {
        names: response.body.items.map((p: { name: string }) => p.name),
        total: response.body.totalCount,
      };
    };
    expect(await names('/v0/persons?query=GRACE')).toEqual({
      names: ['Alan Turing 100%_', 'Grace Hopper'],
      total: 2,
    });
    expect(await names('/v0/persons?query=analytical')).toEqual({ names: ['Ada Lovelace'], total: 1 });
    // LIKE's wildcards are literal characters in a query.
    expect(await names('/v0/persons?query=0%25_')).toEqual({ names: ['Alan Turing 100%_'], total: 1 });
    expect(await names('/v0/persons?query=%25')).toEqual({ names: ['Alan Turing 100%_'], total: 1 });
    expect((await names('/v0/persons?query=')).total).toBe(4);
    const first = await tenant.get('/v0/persons?query=a&limit=2');
    expect(first.body).toMatchObject({ hasMore: true, totalCount: 4 });
    const second = await tenant.get(`/v0/persons?query=a&limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items).toHaveLength(2);
    // A cursor belongs to its query.
    expect((await tenant.get(`/v0/persons?query=b&limit=2&cursor=${first.body.nextCursor}`)).status).toBe(
      400,
    );
    expect((await tenant.get(`/v0/persons?query=${'x'.repeat(201)}`)).status).toBe(400);
  });
});

describe('DELETE /v0/persons/{id}', () => {
  it('erases the person and their log; the account stays', async () => {
    const person = await createPerson({ name: 'Gone', email: 'gone@erased.example' });
    await api.post(`/v0/persons/${person.personId}/logs`, { text: 'a note' });
    const response = await api.delete(`/v0/persons/${person.personId}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ personId: person.personId, deleted: true });
    expect((await api.get(`/v0/persons/${person.personId}`)).status).toBe(404);
    expect((await api.get(`/v0/persons/${person.personId}/logs`)).status).toBe(404);
    const account = await api.get('/v0/accounts/search?query=erased.example');
    expect(account.body.items[0].linkedPersonsCount).toBe(0);
    expect((await api.delete(`/v0/persons/${person.personId}`)).status).toBe(404);
  });

  it('frees the email for a new person', async () => {
    const person = await createPerson({ name: 'Old', email: 'reuse@erased.example' });
    await api.delete(`/v0/persons/${person.personId}`);
    await createPerson({ name: 'New', email: 'reuse@erased.example' });
  });

  it('is 404 for another tenant’s person, which stays', async () => {
    const other = await server.newTenant();
    const foreign = (await other.post('/v0/persons', { name: 'Foreign' })).body;
    expect((await api.delete(`/v0/persons/${foreign.personId}`)).status).toBe(404);
    expect((await other.get(`/v0/persons/${foreign.personId}`)).status).toBe(200);
  });
});

describe('linkedinProfileUrl takes absolute http(s) URLs only (issue 21 finding 11)', () => {
  it.each([...SCRIPT_URLS, ...NOT_ABSOLUTE])(
    'refuses %j on create and on update at /body/linkedinProfileUrl, storing nothing',
    async (url) => {
      const before = (await api.get('/v0/persons?limit=1')).body.totalCount;
      const created = await api.post('/v0/persons', { name: 'Hostile', linkedinProfileUrl: url });
      expect(created.status).toBe(400);
      expect(created.body.code).toBe('validation_failed');
      expect(created.body.errors.map((e: { path: string }) => e.path)).toEqual(['/body/linkedinProfileUrl']);
      expect((await api.get('/v0/persons?limit=1')).body.totalCount).toBe(before);

      const person = await createPerson({
        name: 'Kept',
        linkedinProfileUrl: 'https://www.linkedin.com/in/kept',
      });
      const updated = await api.patch(`/v0/persons/${person.personId}`, { linkedinProfileUrl: url });
      expect(updated.status).toBe(400);
      expect(updated.body.errors.map((e: { path: string }) => e.path)).toContain('/body/linkedinProfileUrl');
      expect((await api.get(`/v0/persons/${person.personId}`)).body).toEqual(person);
    },
  );

  it.each(ABSOLUTE_URLS)('accepts %j on create and on update', async (url) => {
    const person = await createPerson({ name: 'Linked', linkedinProfileUrl: url });
    expect(person.linkedinProfileUrl).toBe(url);
    const updated = await api.patch(`/v0/persons/${person.personId}`, { linkedinProfileUrl: url });
    expect(updated.status).toBe(200);
    expect(updated.body.linkedinProfileUrl).toBe(url);
  });
});
