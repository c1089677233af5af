import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyTables } from '../helpers/any-tables.ts';
import { type Client, onPostgres, startServer, type TestServer } from '../helpers/server.ts';

/**
 * Persons of one tenant at the scale decisions.md §10 names (300,000 per tenant; PERSON_SEARCH_ROWS
 * changes it): a search reads the index, never every person, so that it holds the event loop (on
 * SQLite, whose statements run on it) for a few milliseconds, and another tenant's requests do not
 * wait behind it. PostgreSQL's statements do not run on the event loop: there the answers are
 * checked on fewer persons, and tests/db/search-index.test.ts shows the plans use the index.
 */
const PERSONS = Number(process.env.PERSON_SEARCH_ROWS ?? (onPostgres ? 30_000 : 300_000));
/**
 * §10 allows a request 50 ms of the event loop; this is twice that, for a 2-core machine shared with
 * other work, and still far below a scan of the persons (300 ms to a second here, at its fastest).
 */
const EVENT_LOOP_BUDGET_MS = 100;
const SEARCHES = 7;

let server: TestServer;
let tenant: Client;

/** Rows per statement: PostgreSQL slows down on a counter row updated many times in one transaction. */
const BATCH = 5_000;

/** Person i: "Name i", user<i>@example.com; ids in the order of i, oldest first. */
async function seedPersons(tenantId: string, count: number): Promise<void> {
  const db = anyTables(server.database);
  const padded = onPostgres ? sql`lpad(i::text, 7, '0')` : sql`printf('%07d', i)`;
  for (let first = 1; first <= count; first += BATCH) {
    const last = Math.min(first + BATCH - 1, count);
    await sql`INSERT INTO persons (id, tenant_id, name, email, email_key, domain, domain_given, slug, created_at, updated_at)
      SELECT 'person_' || ${padded}, ${tenantId}, 'Name ' || i, 'user' || i || '@example.com',
        'user' || i || '@example.com', 'example.com', 0, 'name-' || i, 1700000000000, 1700000000000
      FROM (WITH RECURSIVE numbers (i) AS (SELECT CAST(${first} AS integer) UNION ALL SELECT i + 1 FROM numbers WHERE i < ${last})
        SELECT i FROM numbers) AS numbers`.execute(db);
  }
  // The planner's statistics after so many rows, as autovacuum or the hourly optimize (connection.ts) keep them.
  await (onPostgres ? sql`ANALYZE persons, persons_search` : sql`PRAGMA optimize=0x10002`).execute(db);
}

beforeAll(async () => {
  server = await startServer();
  tenant = await server.newTenant();
  await seedPersons(tenant.tenantId, PERSONS);
}, 120_000);
afterAll(() => server.close());

/**
 * The fastest of SEARCHES requests, one at a time, and the last answer. On SQLite the server's
 * statements run on this process's event loop: a request holds it for about as long. The fastest
 * is what the search costs when other work on the machine leaves it alone; a scan is never fast.
 */
async function timed(url: string) {
  let fastest = Number.POSITIVE_INFINITY;
  let body: { items: { name: string }[]; totalCount: number | null; hasMore: boolean } | undefined;
  for (let i = 0; i < SEARCHES; i++) {
    const start = performance.now();
    const response = await tenant.get(url);
    fastest = Math.min(fastest, performance.now() - start);
    expect(response.status).toBe(200);
    body = response.body;
  }
  return { fastest, body: body as NonNullable<typeof body> };
}

describe(`GET /v0/persons?query= among ${PERSONS.toLocaleString('en')} persons of a tenant`, () => {
  it.each([
    ['one person', `user${Math.floor(PERSONS * 0.123)}@`, 1],
    ['every person, too many to count', 'EXAMPLE.com', null],
    ['no person', 'zqzq', 0],
  ])('finds %s through the index, within the event loop budget', async (_label, query, total) => {
    const { fastest, body } = await timed(`/v0/persons?query=${encodeURIComponent(query)}`);
    expect(body.totalCount).toBe(total);
    expect(body.items.length).toBe(Math.min(total ?? 20, 20));
    if (!onPostgres) expect(fastest).toBeLessThan(EVENT_LOOP_BUDGET_MS);
  });

  it.each([
    ['that no person holds', 'zq'],
    ['that every person holds', '@'],
  ])(
    'looks for a query of two characters or fewer %s among a bounded stretch of persons',
    async (_label, query) => {
      const { fastest, body } = await timed(`/v0/persons?query=${encodeURIComponent(query)}`);
      // Too many persons to count row by row: the total is unknown, and paging goes on.
      expect(body).toMatchObject({ totalCount: null, hasMore: true });
      if (!onPostgres) expect(fastest).toBeLessThan(EVENT_LOOP_BUDGET_MS);
    },
  );
});
