import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SAFE } from '../../src/http/schemas.ts';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import { Topic, TopicEntry, TopicList } from '../../src/resources/topics/schema.ts';
import { topicsForBrand } from '../../src/resources/topics/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { SAMPLE_PAGE } from '../helpers/pages.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, onPostgres, type Response, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

const TIMESTAMP = /^\+[1-9]\d{1,14}$/;
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
const text = (content: string) => ({ type: 'text', content });

async function createTopic(body: Record<string, unknown>, client = api) {
  const response = await client.post('/v0/topics', body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expectSchema(Topic, response.body);
  return response.body;
}

async function addEntry(topicId: string, body: Record<string, unknown>, client = api) {
  const response = await client.post(`/v0/topics/${topicId}/entries`, body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expectSchema(TopicEntry, response.body);
  return response.body;
}

async function getTopic(topicId: string, client = api) {
  const response = await client.get(`/v0/topics/${topicId}`);
  expect(response.status).toBe(200);
  return response.body;
}

const entryUrl = (topicId: string, entryId: string) => `/v0/topics/${topicId}/entries/${entryId}`;
const paths = (body: { errors: { path: string }[] }) => body.errors.map((e) => e.path);
const titles = (items: { title: string }[]) => items.map((t) => t.title);

/** Every item of a search, page by page through the cursors. */
async function walk(client: Client, query: string, limit: number) {
  const items: { topicId: string; title: string }[] = [];
  let cursor: string | null = null;
  do {
    const params: URLSearchParams = new URLSearchParams({
      query,
      limit: String(limit),
      ...(cursor ? { cursor } : {}),
    });
    const response: Response = await client.get(`/v0/topics/search?${params}`);
    expect(response.status).toBe(200);
    expectSchema(TopicList, response.body);
    expect(response.body.items.length).toBeLessThanOrEqual(limit);
    expect(response.body.nextCursor === null).toBe(!response.body.hasMore);
    items.push(...response.body.items);
    cursor = response.body.nextCursor;
  } while (cursor);
  return items;
}

describe('POST /v0/topics', () => {
  it('creates a topic with the defaults, 201 with Location', async () => {
    const response = await api.post('/v0/topics', { title: 'Pricing' });
    expect(response.status).toBe(201);
    expectSchema(Topic, response.body);
    expect(response.headers.get('location')).toBe(`/v0/topics/${response.body.topicId}`);
    expect(response.body).toMatchObject({
      title: 'Pricing',
      purpose: '',
      sortOrder: 0,
      isDefault: false,
      brandIds: [],
      entries: [],
    });
    expect(response.body.topicId).toMatch(/^topic_[a-z0-9]{26}$/);
    expect(response.body.createdAt).toMatch(TIMESTAMP);
    expect(response.body.updatedAt).toBe(response.body.createdAt);
    expect(await getTopic(response.body.topicId)).toEqual(response.body);
  });

  it('keeps every field as sent, at the limits of their ranges', async () => {
    const body = { title: ` ${'t'.repeat(253)} `, purpose: 'p'.repeat(2000), sortOrder: MAX_SAFE };
    const topic = await createTopic(body);
    expect(topic).toMatchObject(body);
    expect((await createTopic({ title: 'Zero', sortOrder: 0 })).sortOrder).toBe(0);
  });

  it.each([
    ['a missing title', {}, '/body/title'],
    ['an empty title', { title: '' }, '/body/title'],
    ['a title over 255 characters', { title: 't'.repeat(256) }, '/body/title'],
    ['a non-string title', { title: 5 }, '/body/title'],
    ['a null title', { title: null }, '/body/title'],
    ['a purpose over 2000 characters', { title: 'T', purpose: 'p'.repeat(2001) }, '/body/purpose'],
    ['a null purpose', { title: 'T', purpose: null }, '/body/purpose'],
    ['a negative sortOrder', { title: 'T', sortOrder: -1 }, '/body/sortOrder'],
    ['a fractional sortOrder', { title: 'T', sortOrder: 1.5 }, '/body/sortOrder'],
    ['a sortOrder over the safe range', { title: 'T', sortOrder: MAX_SAFE + 1 }, '/body/sortOrder'],
    ['a string sortOrder', { title: 'T', sortOrder: '1' }, '/body/sortOrder'],
    ['a string isDefault', { title: 'T', isDefault: 'true' }, '/body/isDefault'],
    ['a null isDefault', { title: 'T', isDefault: null }, '/body/isDefault'],
    ['an unknown field', { title: 'T', entries: [] }, '/body/entries'],
  ])('rejects %s with 400 and creates nothing', async (_label, body, path) => {
    const tenant = await server.newTenant();
    const response = await tenant.post('/v0/topics', body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(paths(response.body)).toContain(path);
    expect((await tenant.get('/v0/topics/search')).body.totalCount).toBe(0);
  });

  it('keeps at most one default topic: a new default takes the place of the former one', async () => {
    const tenant = await server.newTenant();
    const first = await createTopic({ title: 'First default', isDefault: true }, tenant);
    expect(first.isDefault).toBe(true);
    await createTopic({ title: 'Regular', isDefault: false }, tenant);
    expect((await getTopic(first.topicId, tenant)).isDefault).toBe(true);

    await pause();
    const second = await createTopic({ title: 'Second default', isDefault: true }, tenant);
    expect(second.isDefault).toBe(true);
    const former = await getTopic(first.topicId, tenant);
    expect(former.isDefault).toBe(false);
    expect(former.updatedAt).not.toBe(first.updatedAt);
    expect(former.createdAt).toBe(first.createdAt);
    const all = (await tenant.get('/v0/topics/search')).body.items;
    expect(all.filter((t: { isDefault: boolean }) => t.isDefault).map((t: Topic) => t.topicId)).toEqual([
      second.topicId,
    ]);
  });

  it('keeps one default when several are created at once', async () => {
    const tenant = await server.newTenant();
    const created = await Promise.all(
      [1, 2, 3, 4].map((n) => tenant.post('/v0/topics', { title: `Default ${n}`, isDefault: true })),
    );
    expect(created.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    const all = (await tenant.get('/v0/topics/search')).body.items;
    expect(all).toHaveLength(4);
    expect(all.filter((t: { isDefault: boolean }) => t.isDefault)).toHaveLength(1);
  });

  it('lets each tenant have its own default topic', async () => {
    const other = await server.newTenant();
    const mine = await createTopic({ title: 'Mine', isDefault: true });
    await createTopic({ title: 'Theirs', isDefault: true }, other);
    expect((await getTopic(mine.topicId)).isDefault).toBe(true);
  });
});

describe('topics of brands', () => {
  it('keeps the brands a topic is for; [] is every brand', async () => {
    const topic = await createTopic({ title: 'Acme only', brandIds: ['acme', 'acme.uk'] });
    expect(topic.brandIds).toEqual(['acme', 'acme.uk']);
    expect((await getTopic(topic.topicId)).brandIds).toEqual(['acme', 'acme.uk']);
  });

  it.each([
    ['a brand id with a space', { brandIds: ['a b'] }],
    ['a brand id over 64 characters', { brandIds: ['b'.repeat(65)] }],
    ['an empty brand id', { brandIds: [''] }],
    ['a brand id twice', { brandIds: ['acme', 'acme'] }],
    ['brand ids that are not a list', { brandIds: 'acme' }],
  ])('rejects %s with 400 at /body/brandIds and makes nothing', async (_label, body) => {
    const client = await server.newTenant();
    const response = await client.post('/v0/topics', { title: 'T', ...body });
    expect(response.status).toBe(400);
    expect(paths(response.body)[0]).toMatch(/^\/body\/brandIds/);
    expect((await client.get('/v0/topics/search')).body.totalCount).toBe(0);
  });
});

describe('PATCH /v0/topics/{id}', () => {
  it('changes the given fields, keeps the others, moves updatedAt', async () => {
    const topic = await createTopic({ title: 'Old', purpose: 'Kept', sortOrder: 3, brandIds: ['a'] });
    await pause();
    const response = await api.patch(`/v0/topics/${topic.topicId}`, { title: 'New', brandIds: ['b', 'c'] });
    expect(response.status).toBe(200);
    expectSchema(Topic, response.body);
    expect(response.body).toMatchObject({
      title: 'New',
      purpose: 'Kept',
      sortOrder: 3,
      brandIds: ['b', 'c'],
    });
    expect(response.body.updatedAt > topic.updatedAt).toBe(true);
    expect(await getTopic(topic.topicId)).toEqual(response.body);
  });

  it('changes purpose and sortOrder, which moves the topic in the list', async () => {
    const client = await server.newTenant();
    const first = await createTopic({ title: 'First', sortOrder: 1 }, client);
    const second = await createTopic({ title: 'Second', sortOrder: 2 }, client);
    const response = await client.patch(`/v0/topics/${second.topicId}`, {
      purpose: 'Now first',
      sortOrder: 0,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ purpose: 'Now first', sortOrder: 0, title: 'Second' });
    expect((await walk(client, '', 10)).map((topic) => topic.topicId)).toEqual([
      second.topicId,
      first.topicId,
    ]);
  });

  it('makes a topic the default in place of the former one', async () => {
    const client = await server.newTenant();
    const first = await createTopic({ title: 'First', isDefault: true }, client);
    const second = await createTopic({ title: 'Second' }, client);
    const response = await client.patch(`/v0/topics/${second.topicId}`, { isDefault: true });
    expect(response.body.isDefault).toBe(true);
    expect((await getTopic(first.topicId, client)).isDefault).toBe(false);
    const unset = await client.patch(`/v0/topics/${second.topicId}`, { isDefault: false });
    expect(unset.body.isDefault).toBe(false);
  });

  it('an empty update changes nothing', async () => {
    const topic = await createTopic({ title: 'Same' });
    await pause();
    const response = await api.patch(`/v0/topics/${topic.topicId}`, {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual(topic);
  });

  it.each([
    ['a null title', { title: null }],
    ['an empty title', { title: '' }],
    ['a null brandIds', { brandIds: null }],
    ['a negative sortOrder', { sortOrder: -1 }],
    ['an unknown field', { colour: 'red' }],
  ])('rejects %s with 400 and changes nothing', async (_label, body) => {
    const topic = await createTopic({ title: 'Stays' });
    const response = await api.patch(`/v0/topics/${topic.topicId}`, body);
    expect(response.status).toBe(400);
    expect(await getTopic(topic.topicId)).toEqual(topic);
  });

  it("is 404 for an unknown topic and another tenant's", async () => {
    const foreign = await createTopic({ title: 'Theirs' }, await server.newTenant());
    for (const id of ['topic_00000000000000000000000000', foreign.topicId]) {
      expect((await api.patch(`/v0/topics/${id}`, { title: 'Mine' })).status).toBe(404);
    }
  });
});

describe('GET /v0/topics/{id}', () => {
  it('returns the topic with its entries by sortOrder, then newest first', async () => {
    const topic = await createTopic({ title: 'Ordered', purpose: 'Entries in order' });
    const late = await addEntry(topic.topicId, { content: text('late'), sortOrder: 9 });
    const older = await addEntry(topic.topicId, { content: text('older zero') });
    const newer = await addEntry(topic.topicId, { content: text('newer zero'), sortOrder: 0 });
    const middle = await addEntry(topic.topicId, {
      content: { type: 'markdown', content: '*mid*' },
      sortOrder: 5,
    });
    const response = await api.get(`/v0/topics/${topic.topicId}`);
    expect(response.status).toBe(200);
    expectSchema(Topic, response.body);
    expect(response.body.entries).toEqual([newer, older, middle, late]);
    expect(response.body).toMatchObject({
      topicId: topic.topicId,
      title: 'Ordered',
      purpose: 'Entries in order',
    });
  });

  it('is 404 for an unknown, malformed or foreign id', async () => {
    const foreign = await createTopic({ title: 'Foreign' }, await server.newTenant());
    for (const id of ['topic_00000000000000000000000000', 'x', foreign.topicId]) {
      const response = await api.get(`/v0/topics/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
  });
});

describe('POST /v0/topics/{id}/entries', () => {
  it('adds an entry, 201 with Location, and moves the topic’s updatedAt', async () => {
    const topic = await createTopic({ title: 'With entries' });
    await pause();
    const response = await api.post(`/v0/topics/${topic.topicId}/entries`, {
      content: { type: 'markdown', content: '# Heading\n\nBody' },
      sortOrder: 3,
    });
    expect(response.status).toBe(201);
    expectSchema(TopicEntry, response.body);
    const entry = response.body;
    expect(response.headers.get('location')).toBe(entryUrl(topic.topicId, entry.topicEntryId));
    expect(entry).toMatchObject({
      topicId: topic.topicId,
      sortOrder: 3,
      content: { type: 'markdown', content: '# Heading\n\nBody' },
    });
    expect(entry.topicEntryId).toMatch(/^topicentry_[a-z0-9]{26}$/);
    expect(entry.createdAt).toMatch(TIMESTAMP);
    expect(entry.updatedAt).toBe(entry.createdAt);

    const after = await getTopic(topic.topicId);
    expect(after.entries).toEqual([entry]);
    expect(after.updatedAt).toBe(entry.createdAt);
    expect(after.updatedAt).not.toBe(topic.updatedAt);
    expect(after.createdAt).toBe(topic.createdAt);
  });

  it('defaults sortOrder to 0 and accepts the top of the range', async () => {
    const topic = await createTopic({ title: 'Defaults' });
    expect((await addEntry(topic.topicId, { content: text('plain') })).sortOrder).toBe(0);
    expect((await addEntry(topic.topicId, { content: text('last'), sortOrder: MAX_SAFE })).sortOrder).toBe(
      MAX_SAFE,
    );
    expect(
      (await addEntry(topic.topicId, { content: text('c'.repeat(10000)) })).content.content,
    ).toHaveLength(10000);
  });

  it.each([
    ['a missing content', {}, '/body/content'],
    ['a null content', { content: null }, '/body/content'],
    ['a string content', { content: 'text' }, '/body/content'],
    ['a content without type', { content: { content: 'x' } }, '/body/content/type'],
    ['a content without text', { content: { type: 'text' } }, '/body/content/content'],
    ['an unknown content type', { content: { type: 'html', content: '<p>x</p>' } }, '/body/content/type'],
    ['an empty text', { content: text('') }, '/body/content/content'],
    ['a text over 10000 characters', { content: text('c'.repeat(10001)) }, '/body/content/content'],
    ['a non-string text', { content: { type: 'text', content: 5 } }, '/body/content/content'],
    ['an unknown content field', { content: { ...text('x'), lang: 'en' } }, '/body/content/lang'],
    ['a negative sortOrder', { content: text('x'), sortOrder: -1 }, '/body/sortOrder'],
    ['a fractional sortOrder', { content: text('x'), sortOrder: 0.5 }, '/body/sortOrder'],
    ['a sortOrder over the safe range', { content: text('x'), sortOrder: MAX_SAFE + 1 }, '/body/sortOrder'],
    ['a null sortOrder', { content: text('x'), sortOrder: null }, '/body/sortOrder'],
    ['an unknown field', { content: text('x'), topicId: 'topic_x' }, '/body/topicId'],
  ])('rejects %s with 400 and changes nothing', async (_label, body, path) => {
    const topic = await createTopic({ title: 'Untouched' });
    await addEntry(topic.topicId, { content: text('kept') });
    const before = await getTopic(topic.topicId);
    await pause();
    const response = await api.post(`/v0/topics/${topic.topicId}/entries`, body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(paths(response.body)).toContain(path);
    expect(await getTopic(topic.topicId)).toEqual(before);
  });

  it('is 404 for an unknown, malformed or foreign topic, which stays as it was', async () => {
    const other = await server.newTenant();
    const foreign = await createTopic({ title: 'Theirs' }, other);
    for (const id of ['topic_00000000000000000000000000', 'x', foreign.topicId]) {
      const response = await api.post(`/v0/topics/${id}/entries`, { content: text('intrusion') });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
    expect(await getTopic(foreign.topicId, other)).toEqual(foreign);
  });

  it('holds at most 100 entries: the 101st is 409 invalid_state', async () => {
    const topic = await createTopic({ title: 'Full' });
    for (let n = 0; n < 100; n++) await addEntry(topic.topicId, { content: text(`fact ${n}`) });
    const full = await getTopic(topic.topicId);
    const response = await api.post(`/v0/topics/${topic.topicId}/entries`, { content: text('one more') });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_state');
    expect(await getTopic(topic.topicId)).toEqual(full);
    expect(full.entries).toHaveLength(100);
  });
});

describe('GET /v0/topics/{id}/entries/{entryId}', () => {
  it('returns the entry', async () => {
    const topic = await createTopic({ title: 'Readable' });
    const entry = await addEntry(topic.topicId, { content: text('read me') });
    const response = await api.get(entryUrl(topic.topicId, entry.topicEntryId));
    expect(response.status).toBe(200);
    expectSchema(TopicEntry, response.body);
    expect(response.body).toEqual(entry);
  });

  it('is 404 for an entry of another topic or another tenant', async () => {
    const topic = await createTopic({ title: 'One' });
    const otherTopic = await createTopic({ title: 'Two' });
    const entry = await addEntry(topic.topicId, { content: text('mine') });
    const other = await server.newTenant();
    expect((await api.get(entryUrl(otherTopic.topicId, entry.topicEntryId))).status).toBe(404);
    expect((await other.get(entryUrl(topic.topicId, entry.topicEntryId))).status).toBe(404);
  });
});

describe('PATCH /v0/topics/{id}/entries/{entryId}', () => {
  it('replaces the content whole, keeps sortOrder, and moves the entry’s and the topic’s updatedAt', async () => {
    const topic = await createTopic({ title: 'Patched' });
    const entry = await addEntry(topic.topicId, { content: text('draft'), sortOrder: 4 });
    await pause();
    const response = await api.patch(entryUrl(topic.topicId, entry.topicEntryId), {
      content: { type: 'markdown', content: '**final**' },
    });
    expect(response.status).toBe(200);
    expectSchema(TopicEntry, response.body);
    expect(response.body).toMatchObject({
      topicEntryId: entry.topicEntryId,
      topicId: topic.topicId,
      sortOrder: 4,
      content: { type: 'markdown', content: '**final**' },
      createdAt: entry.createdAt,
    });
    expect(response.body.updatedAt).not.toBe(entry.updatedAt);
    const after = await getTopic(topic.topicId);
    expect(after.entries).toEqual([response.body]);
    expect(after.updatedAt).toBe(response.body.updatedAt);
    expect(after.createdAt).toBe(topic.createdAt);
  });

  it('changes sortOrder alone, which reorders the topic’s entries', async () => {
    const topic = await createTopic({ title: 'Reordered' });
    const first = await addEntry(topic.topicId, { content: text('first'), sortOrder: 1 });
    const second = await addEntry(topic.topicId, { content: text('second'), sortOrder: 2 });
    await pause();
    const response = await api.patch(entryUrl(topic.topicId, first.topicEntryId), { sortOrder: MAX_SAFE });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ sortOrder: MAX_SAFE, content: text('first') });
    expect(response.body.updatedAt).not.toBe(first.updatedAt);
    const after = await getTopic(topic.topicId);
    expect(after.entries.map((e: { topicEntryId: string }) => e.topicEntryId)).toEqual([
      second.topicEntryId,
      first.topicEntryId,
    ]);
    expect(
      (await api.patch(entryUrl(topic.topicId, first.topicEntryId), { sortOrder: 0 })).body.sortOrder,
    ).toBe(0);
  });

  it('changes nothing for an empty body', async () => {
    const topic = await createTopic({ title: 'Unchanged' });
    const entry = await addEntry(topic.topicId, { content: text('same') });
    const before = await getTopic(topic.topicId);
    await pause();
    const response = await api.patch(entryUrl(topic.topicId, entry.topicEntryId), {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual(entry);
    expect(await getTopic(topic.topicId)).toEqual(before);
  });

  it.each([
    ['a null content', { content: null }, '/body/content'],
    ['a null sortOrder', { sortOrder: null }, '/body/sortOrder'],
    ['a negative sortOrder', { sortOrder: -1 }, '/body/sortOrder'],
    ['a fractional sortOrder', { sortOrder: 2.5 }, '/body/sortOrder'],
    ['a sortOrder over the safe range', { sortOrder: MAX_SAFE + 1 }, '/body/sortOrder'],
    ['a string sortOrder', { sortOrder: '3' }, '/body/sortOrder'],
    ['a content without text', { content: { type: 'text' } }, '/body/content/content'],
    ['a content without type', { content: { content: 'x' } }, '/body/content/type'],
    ['an unknown content type', { content: { type: 'html', content: 'x' } }, '/body/content/type'],
    ['an empty text', { content: text('') }, '/body/content/content'],
    ['a text over 10000 characters', { content: text('c'.repeat(10001)) }, '/body/content/content'],
    ['an unknown content field', { content: { ...text('x'), extra: 1 } }, '/body/content/extra'],
    ['an unknown field', { topicId: 'topic_00000000000000000000000000' }, '/body/topicId'],
  ])('rejects %s with 400 and changes nothing', async (_label, body, path) => {
    const topic = await createTopic({ title: 'Guarded' });
    const entry = await addEntry(topic.topicId, { content: text('keep'), sortOrder: 7 });
    const before = await getTopic(topic.topicId);
    await pause();
    const response = await api.patch(entryUrl(topic.topicId, entry.topicEntryId), body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(paths(response.body)).toContain(path);
    expect(await getTopic(topic.topicId)).toEqual(before);
  });

  it('is 404 for an entry of another topic, which stays as it was', async () => {
    const topic = await createTopic({ title: 'Owner' });
    const otherTopic = await createTopic({ title: 'Bystander' });
    const entry = await addEntry(topic.topicId, { content: text('owned') });
    const before = [await getTopic(topic.topicId), await getTopic(otherTopic.topicId)];
    const response = await api.patch(entryUrl(otherTopic.topicId, entry.topicEntryId), {
      content: text('moved?'),
    });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('not_found');
    expect([await getTopic(topic.topicId), await getTopic(otherTopic.topicId)]).toEqual(before);
  });

  it('is 404 for an unknown or malformed entry or topic', async () => {
    const topic = await createTopic({ title: 'Known' });
    const entry = await addEntry(topic.topicId, { content: text('known') });
    for (const url of [
      entryUrl(topic.topicId, 'topicentry_00000000000000000000000000'),
      entryUrl(topic.topicId, 'x'),
      entryUrl('topic_00000000000000000000000000', entry.topicEntryId),
      entryUrl('x', entry.topicEntryId),
    ]) {
      const response = await api.patch(url, { sortOrder: 1 });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
  });

  it('is 404 for another tenant’s entry, which stays as it was', async () => {
    const other = await server.newTenant();
    const theirs = await createTopic({ title: 'Theirs' }, other);
    const entry = await addEntry(theirs.topicId, { content: text('theirs') }, other);
    const before = await getTopic(theirs.topicId, other);
    const mine = await createTopic({ title: 'Mine' });
    for (const topicId of [theirs.topicId, mine.topicId]) {
      const response = await api.patch(entryUrl(topicId, entry.topicEntryId), { content: text('mine now') });
      expect(response.status).toBe(404);
    }
    expect(await getTopic(theirs.topicId, other)).toEqual(before);
  });
});

/** The rows of entries the database still holds for the topic `topicId`, whatever the API says. */
function entryRowsOf(topicId: string) {
  return anyTables(server.database)
    .selectFrom('topic_entries')
    .select('id')
    .where('topic_id', '=', topicId)
    .execute();
}

describe('DELETE /v0/topics/{id}', () => {
  it('deletes the topic with its entries: 204 without a body, then 404 for both', async () => {
    const topic = await createTopic({ title: 'Going' });
    const entry = await addEntry(topic.topicId, { content: text('goes too') });
    const response = await api.delete(`/v0/topics/${topic.topicId}`);
    expect(response.status).toBe(204);
    expect(response.body).toBe('');
    expect((await api.get(`/v0/topics/${topic.topicId}`)).status).toBe(404);
    expect((await api.get(entryUrl(topic.topicId, entry.topicEntryId))).status).toBe(404);
    expect((await api.delete(`/v0/topics/${topic.topicId}`)).status).toBe(404);
    expect(await entryRowsOf(topic.topicId)).toEqual([]);
  });

  it('never leaves an entry behind when one is added while the topic is deleted', async () => {
    for (let round = 0; round < 5; round++) {
      const topic = await createTopic({ title: `Raced ${round}` });
      const [added, deleted] = await Promise.all([
        api.post(`/v0/topics/${topic.topicId}/entries`, { content: text('late') }),
        api.delete(`/v0/topics/${topic.topicId}`),
      ]);
      expect([201, 404]).toContain(added.status);
      expect(deleted.status).toBe(204);
      expect(await entryRowsOf(topic.topicId)).toEqual([]);
    }
  });

  it('leaves the tenant without a default topic when the default is deleted', async () => {
    const client = await server.newTenant();
    const former = await createTopic({ title: 'Overview', isDefault: true }, client);
    expect((await client.delete(`/v0/topics/${former.topicId}`)).status).toBe(204);
    const rest = await walk(client, '', 100);
    expect(rest).toEqual([]);
    expect((await createTopic({ title: 'New overview', isDefault: true }, client)).isDefault).toBe(true);
  });

  it("is 404 for an unknown, malformed or another tenant's topic, which stays as it was", async () => {
    const other = await server.newTenant();
    const theirs = await createTopic({ title: 'Theirs' }, other);
    await addEntry(theirs.topicId, { content: text('theirs') }, other);
    const before = await getTopic(theirs.topicId, other);
    for (const id of ['topic_00000000000000000000000000', 'x', theirs.topicId]) {
      const response = await api.delete(`/v0/topics/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
    expect(await getTopic(theirs.topicId, other)).toEqual(before);
  });

  it('is 403 for a read-only key, and the topic stays', async () => {
    const topic = await createTopic({ title: 'Kept' });
    const { apiKey } = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    const response = await api.as(apiKey).delete(`/v0/topics/${topic.topicId}`);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('forbidden');
    expect(await getTopic(topic.topicId)).toEqual(topic);
  });
});

describe('DELETE /v0/topics/{id}/entries/{entryId}', () => {
  it("deletes the entry, 204, keeps the others and moves the topic's updatedAt", async () => {
    const topic = await createTopic({ title: 'Trimmed' });
    const gone = await addEntry(topic.topicId, { content: text('outdated claim') });
    const kept = await addEntry(topic.topicId, { content: text('still true') });
    const before = await getTopic(topic.topicId);
    await pause();
    const response = await api.delete(entryUrl(topic.topicId, gone.topicEntryId));
    expect(response.status).toBe(204);
    expect(response.body).toBe('');
    const after = await getTopic(topic.topicId);
    expect(after.entries).toEqual([kept]);
    expect(after.updatedAt > before.updatedAt).toBe(true);
    expect((await api.get(entryUrl(topic.topicId, gone.topicEntryId))).status).toBe(404);
    expect((await api.delete(entryUrl(topic.topicId, gone.topicEntryId))).status).toBe(404);
  });

  it('is 404 for an entry of another topic, and both topics stay as they were', async () => {
    const topic = await createTopic({ title: 'Owner' });
    const otherTopic = await createTopic({ title: 'Bystander' });
    const entry = await addEntry(topic.topicId, { content: text('owned') });
    const before = [await getTopic(topic.topicId), await getTopic(otherTopic.topicId)];
    const response = await api.delete(entryUrl(otherTopic.topicId, entry.topicEntryId));
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('not_found');
    expect([await getTopic(topic.topicId), await getTopic(otherTopic.topicId)]).toEqual(before);
  });

  it("is 404 for an unknown or malformed entry or topic, and for another tenant's entry", async () => {
    const topic = await createTopic({ title: 'Known' });
    const entry = await addEntry(topic.topicId, { content: text('known') });
    const other = await server.newTenant();
    const theirs = await createTopic({ title: 'Theirs' }, other);
    const their = await addEntry(theirs.topicId, { content: text('theirs') }, other);
    const before = [await getTopic(topic.topicId), await getTopic(theirs.topicId, other)];
    for (const url of [
      entryUrl(topic.topicId, 'topicentry_00000000000000000000000000'),
      entryUrl(topic.topicId, 'x'),
      entryUrl('topic_00000000000000000000000000', entry.topicEntryId),
      entryUrl('x', entry.topicEntryId),
      entryUrl(theirs.topicId, their.topicEntryId),
      entryUrl(topic.topicId, their.topicEntryId),
    ]) {
      const response = await api.delete(url);
      expect(response.status, url).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
    expect([await getTopic(topic.topicId), await getTopic(theirs.topicId, other)]).toEqual(before);
  });

  it('is 403 for a read-only key, and the entry stays', async () => {
    const topic = await createTopic({ title: 'Guarded' });
    const entry = await addEntry(topic.topicId, { content: text('guarded') });
    const { apiKey } = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    const response = await api.as(apiKey).delete(entryUrl(topic.topicId, entry.topicEntryId));
    expect(response.status).toBe(403);
    expect((await getTopic(topic.topicId)).entries).toEqual([entry]);
  });
});

describe('deleted knowledge', () => {
  /** Words no other text of the test has, each found only where its entry is. */
  const OUTDATED = 'Zebrafruit shelf alerts cut empty shelves by nineteen percent.';
  const STILL_TRUE = 'Quillberry forecasts tell each store what sells, week by week.';

  it('is found by search no more', async () => {
    const client = await server.newTenant();
    const topic = await createTopic({ title: 'Shelves', purpose: 'About shelf alerts' }, client);
    const entry = await addEntry(topic.topicId, { content: text(OUTDATED) }, client);
    await addEntry(topic.topicId, { content: text(STILL_TRUE) }, client);
    const other = await createTopic({ title: 'Forecasts', purpose: 'Zebrafruit of another kind' }, client);
    expect(titles(await walk(client, 'zebrafruit shelf', 20))).toEqual(['Shelves']);

    expect((await client.delete(entryUrl(topic.topicId, entry.topicEntryId))).status).toBe(204);
    expect(await walk(client, 'zebrafruit shelf', 20)).toEqual([]);
    expect(titles(await walk(client, 'quillberry', 20))).toEqual(['Shelves']);

    expect((await client.delete(`/v0/topics/${topic.topicId}`)).status).toBe(204);
    for (const query of ['quillberry', 'shelf alerts', 'shelves', 'qui']) {
      expect(await walk(client, query, 20), query).toEqual([]);
    }
    expect(titles(await walk(client, 'zebrafruit', 20))).toEqual([other.title]);
  });

  it('stops feeding generation at once, a version queued before the delete included; generated ones keep their copy', async () => {
    const client = await server.newTenant();
    const topic = await createTopic({ title: 'Restock desk', brandIds: ['acme'] }, client);
    const outdated = await addEntry(topic.topicId, { content: text(OUTDATED) }, client);
    await addEntry(topic.topicId, { content: text(STILL_TRUE) }, client);
    const page = await client.post('/v0/pages', {
      ...SAMPLE_PAGE,
      pageContext: 'Shelf alerts and forecasts for every store: fewer empty shelves, week by week.',
    });
    expect(page.status, JSON.stringify(page.body)).toBe(201);
    const audiences = `/v0/pages/${page.body.pageId}/audiences`;
    const audience = await client.post(audiences, {});
    expect(audience.status, JSON.stringify(audience.body)).toBe(201);
    const versionsUrl = `${audiences}/${audience.body.audienceId}/versions`;
    /** The newest version, generated by then, with its copy. */
    const newest = async () => {
      const [version] = (await client.get(versionsUrl)).body.items;
      expect(version.state).toBe('draft');
      return { versionId: version.versionId, copy: JSON.stringify(version.content) };
    };

    await server.worker().drain();
    const first = await newest();
    expect(first.copy).toContain('Zebrafruit');
    expect(first.copy).toContain('Quillberry');

    // Queued while the entry still exists, generated after its delete.
    expect((await client.post(versionsUrl)).status).toBe(201);
    expect((await client.delete(entryUrl(topic.topicId, outdated.topicEntryId))).status).toBe(204);
    await server.worker().drain();
    const second = await newest();
    expect(second.copy).not.toContain('Zebrafruit');
    expect(second.copy).toContain('Quillberry');

    expect((await client.post(versionsUrl)).status).toBe(201);
    expect((await client.delete(`/v0/topics/${topic.topicId}`)).status).toBe(204);
    await server.worker().drain();
    const third = await newest();
    expect(third.copy).not.toMatch(/Zebrafruit|Quillberry|Restock desk/);

    // What was generated before stays as it was.
    const kept = await client.get(`${versionsUrl}/${first.versionId}`);
    expect(JSON.stringify(kept.body.content)).toBe(first.copy);
    const preview = await client.get(`${versionsUrl}/${first.versionId}/preview`);
    expect(preview.body).toContain('Zebrafruit');
  });
});

describe('GET /v0/topics/search', () => {
  let tenant: Client;
  let other: Client;

  // Created in this order, so that equal sortOrders show which is newer.
  const fixture = [
    { title: 'Pricing plans', purpose: 'How we charge', sortOrder: 2, entries: ['Annual billing saves 20%'] },
    {
      title: 'Security',
      purpose: 'SOC 2 and GDPR answers',
      sortOrder: 1,
      entries: ['**Encryption** at rest'],
    },
    {
      title: 'Customer stories',
      purpose: '',
      sortOrder: 2,
      entries: ['ACME cut churn by half', 'Globex saves 20 hours', 'Initech: "fast" rollout'],
    },
    { title: 'Onboarding', purpose: 'First 30 days', sortOrder: 0, entries: [] },
    { title: '100% uptime_promise', purpose: 'SLA', sortOrder: 5, entries: [] },
  ];
  const listOrder = ['Onboarding', 'Security', 'Customer stories', 'Pricing plans', '100% uptime_promise'];

  beforeAll(async () => {
    tenant = await server.newTenant();
    other = await server.newTenant();
    for (const { entries, ...topic } of fixture) {
      const created = await createTopic(topic, tenant);
      for (const content of entries) await addEntry(created.topicId, { content: text(content) }, tenant);
    }
    const foreign = await createTopic({ title: 'Pricing plans', purpose: 'SOC 2' }, other);
    await addEntry(foreign.topicId, { content: text('Encryption and ACME') }, other);
  });

  const search = async (query: string, client = tenant) => {
    const response = await client.get(`/v0/topics/search?query=${encodeURIComponent(query)}`);
    expect(response.status).toBe(200);
    expectSchema(TopicList, response.body);
    return response.body;
  };

  it('lists every topic by sortOrder, then newest first, each with its entries in order', async () => {
    const body = await search('');
    expect(titles(body.items)).toEqual(listOrder);
    expect(body).toMatchObject({ hasMore: false, nextCursor: null, totalCount: 5 });
    const stories = body.items.find((t: { title: string }) => t.title === 'Customer stories');
    expect(stories.entries.map((e: { content: { content: string } }) => e.content.content)).toEqual([
      'Initech: "fast" rollout',
      'Globex saves 20 hours',
      'ACME cut churn by half',
    ]);
    expect(await getTopic(stories.topicId, tenant)).toEqual(stories);
    expect((await tenant.get('/v0/topics/search')).body).toEqual(body);
  });

  // The same data gives the same answer on SQLite (FTS5 trigram, LIKE under three characters) and on
  // PostgreSQL (pg_trgm ILIKE): this table runs unchanged in both test projects.
  it.each([
    ['PRICING', ['Pricing plans']],
    ['soc 2', ['Security']],
    ['gdpr ANSWERS', ['Security']],
    ['encryption', ['Security']],
    ['saves 20', ['Customer stories', 'Pricing plans']],
    ['cu', ['Security', 'Customer stories']],
    ['ac', ['Customer stories']],
    ['%', ['Pricing plans', '100% uptime_promise']],
    ['0% u', ['100% uptime_promise']],
    ['_p', ['100% uptime_promise']],
    ['"fast"', ['Customer stories']],
    ['"soc', []],
    ['first 30', ['Onboarding']],
    ['s', listOrder],
    ['zzz', []],
  ])('query %j matches title, purpose and entry text case-insensitively', async (query, expected) => {
    const body = await search(query);
    expect(titles(body.items)).toEqual(expected);
    expect(body.totalCount).toBe(expected.length);
  });

  it('shows nothing of another tenant, and another tenant nothing of this one', async () => {
    expect((await search('SOC 2', other)).items).toHaveLength(1);
    expect((await search('', other)).totalCount).toBe(1);
    for (const query of ['pricing', 'encryption', 'acme', '']) {
      const ids = (await search(query)).items.map((t: { topicId: string }) => t.topicId);
      const theirs = (await search(query, other)).items.map((t: { topicId: string }) => t.topicId);
      expect(ids.filter((id: string) => theirs.includes(id))).toEqual([]);
    }
    expect(titles((await search('pricing')).items)).toEqual(['Pricing plans']);
  });

  it('walks every page through cursors, with the filter kept', async () => {
    for (const limit of [1, 2, 4]) {
      expect(titles(await walk(tenant, '', limit))).toEqual(listOrder);
      expect(titles(await walk(tenant, 's', limit))).toEqual(listOrder);
      expect(titles(await walk(tenant, 'saves', limit))).toEqual(['Customer stories', 'Pricing plans']);
    }
    const first = await tenant.get('/v0/topics/search?limit=2');
    expect(first.body).toMatchObject({ hasMore: true, totalCount: 5 });
    expect(first.body.items).toHaveLength(2);
  });

  it.each([
    [`query=${'q'.repeat(201)}`, '/querystring/query'],
    ['limit=0', '/querystring/limit'],
    ['limit=101', '/querystring/limit'],
    ['limit=2.5', '/querystring/limit'],
    ['limit=ten', '/querystring/limit'],
  ])('rejects %s with 400', async (query, path) => {
    const response = await tenant.get(`/v0/topics/search?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(paths(response.body)).toContain(path);
  });

  it('accepts a 200-character query and ignores unknown parameters', async () => {
    expect((await tenant.get(`/v0/topics/search?query=${'q'.repeat(200)}`)).body.totalCount).toBe(0);
    expect((await tenant.get('/v0/topics/search?color=blue')).body.totalCount).toBe(5);
  });

  it('refuses a tampered cursor, or one of other filters, another tenant or another list', async () => {
    const cursor: string = (await tenant.get('/v0/topics/search?limit=1')).body.nextCursor;
    const [payload, signature] = cursor.split('.');
    const forged = `${Buffer.from(JSON.stringify([0, 'topic_zzzzzzzzzzzzzzzzzzzzzzzzzz'])).toString('base64url')}.${signature}`;
    const personCursor = await (async () => {
      for (const name of ['A', 'B']) await tenant.post('/v0/persons', { name });
      return (await tenant.get('/v0/persons?limit=1')).body.nextCursor;
    })();
    for (const [client, url] of [
      [tenant, `/v0/topics/search?cursor=${forged}`],
      [tenant, `/v0/topics/search?cursor=${payload}.x`],
      [tenant, `/v0/topics/search?cursor=garbage`],
      [tenant, `/v0/topics/search?query=s&cursor=${cursor}`],
      [other, `/v0/topics/search?cursor=${cursor}`],
      [tenant, `/v0/topics/search?cursor=${personCursor}`],
    ] as const) {
      const response = await client.get(url);
      expect(response.status, url).toBe(400);
      expect(response.body.code).toBe('invalid_cursor');
    }
  });
});

describe('pagination while topics are added', () => {
  it('skips and repeats nothing', async () => {
    const tenant = await server.newTenant();
    for (const sortOrder of [3, 1, 3, 0, 1, 3, 2])
      await createTopic({ title: `T${sortOrder}`, sortOrder }, tenant);
    const before = (await tenant.get('/v0/topics/search?limit=100')).body.items.map(
      (t: { topicId: string }) => t.topicId,
    );
    expect(before).toHaveLength(7);

    const seen: string[] = [];
    let page = (await tenant.get('/v0/topics/search?limit=3')).body;
    seen.push(...page.items.map((t: { topicId: string }) => t.topicId));
    const ahead = await createTopic({ title: 'Ahead', sortOrder: 0 }, tenant);
    const behind = await createTopic({ title: 'Behind', sortOrder: 9 }, tenant);
    const between = await createTopic({ title: 'Between', sortOrder: 1 }, tenant);
    while (page.nextCursor) {
      page = (await tenant.get(`/v0/topics/search?limit=3&cursor=${page.nextCursor}`)).body;
      seen.push(...page.items.map((t: { topicId: string }) => t.topicId));
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => before.includes(id))).toEqual(before);
    // Topics added before the position the cursor holds are not shown; those after it are.
    expect(seen).not.toContain(ahead.topicId);
    expect(seen).not.toContain(between.topicId);
    expect(seen).toEqual([...before, behind.topicId]);
    expect(page.totalCount).toBe(10);
  });
});

describe('topicsForBrand', () => {
  it("returns the topics a brand's pages draw on, with their entries, in list order; the others apart", async () => {
    const tenant = await server.newTenant();
    const b = await createTopic({ title: 'B', sortOrder: 1 }, tenant);
    const a = await createTopic({ title: 'A', sortOrder: 0, isDefault: true }, tenant);
    const c = await createTopic({ title: 'C', sortOrder: 1, brandIds: ['acme'] }, tenant);
    const other = await createTopic({ title: 'D', sortOrder: 1, brandIds: ['globex'] }, tenant);
    await addEntry(b.topicId, { content: text('b2'), sortOrder: 2 }, tenant);
    await addEntry(b.topicId, { content: text('b1'), sortOrder: 1 }, tenant);
    await addEntry(a.topicId, { content: text('a1') }, tenant);
    await createTopic({ title: 'Elsewhere' }, await server.newTenant());

    const db = server.database.forTenant(tenant.tenantId);
    const { own, others } = await topicsForBrand(db, 'acme');
    for (const topic of [...own, ...others]) expectSchema(Topic, topic);
    expect(own.map((t) => t.topicId)).toEqual([a.topicId, c.topicId, b.topicId]);
    expect(others.map((t) => t.topicId)).toEqual([other.topicId]);
    const listed = (await tenant.get('/v0/topics/search')).body.items as typeof own;
    expect(own).toEqual(listed.filter((topic) => topic.topicId !== other.topicId));
    expect(own[2]?.entries.map((e) => e.content.content)).toEqual(['b1', 'b2']);
  });
});

describe('search index', () => {
  /** The database's plan for a query, with sequential scans discouraged on PostgreSQL. */
  async function planOf(table: 'topics' | 'topic_entries', columns: string[]): Promise<string> {
    const where = server.database.search.substringMatch(table, columns, 'pricing');
    const compiled = anyTables(server.database).selectFrom(table).select('id').where(where).compile();
    return anyTables(server.database)
      .transaction()
      .execute(async (trx) => {
        // A small test table is cheaper to scan; the question here is whether the index can serve.
        if (onPostgres) await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        const explain = onPostgres ? 'EXPLAIN ' : 'EXPLAIN QUERY PLAN ';
        const result = await trx.executeQuery({ ...compiled, sql: explain + compiled.sql });
        return JSON.stringify(result.rows);
      });
  }

  it.each([
    ['topics', ['title', 'purpose']],
    ['topic_entries', ['content_text']],
  ] as const)('serves substring search on %s from the trigram index', async (table, columns) => {
    const plan = await planOf(table, [...columns]);
    if (onPostgres) {
      expect(plan).toContain(`${table}_search_content`);
      expect(plan).not.toContain('Seq Scan');
    } else {
      expect(plan).toContain('VIRTUAL TABLE INDEX');
      expect(plan).not.toMatch(new RegExp(`SCAN ${table}\\b(?!_search)`));
    }
  });
});
