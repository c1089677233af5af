import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyTables } from '../helpers/any-tables.ts';
import { trackedPage } from '../helpers/pages.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

/**
 * Migration 0028: the writes of one tenant, or one audience, share no row locked across their
 * transactions (PostgreSQL appends row-count changes and adds staged rollup changes at the
 * commit), and every figure read stays exact: a count is its row plus the changes not yet folded,
 * and the rollups hold every committed batch.
 */

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

const totalPersons = async (client: Client) =>
  (await client.get('/v0/persons?limit=1')).body.totalCount as number;

const changesLeft = async (table: string) =>
  Number(
    (
      await anyTables(server.database)
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('row counts', () => {
  it('count every concurrent create and delete exactly, before, during and after folds', async () => {
    const other = await server.newTenant();
    await other.post('/v0/persons', { name: 'Elsewhere' });
    const creates = Array.from({ length: 40 }, (_, i) =>
      api.post('/v0/persons', { name: `Crowd ${i}`, email: `crowd.${i}@crowd-${i % 3}.example` }),
    );
    // Folds run while the creates commit: each change is counted once, folded or not.
    const folds = Array.from({ length: 5 }, () => server.database.foldRowCounts(7));
    const created = await Promise.all(creates);
    await Promise.all(folds);
    expect(created.map((response) => response.status)).toEqual(created.map(() => 201));
    expect(await totalPersons(api)).toBe(40);

    const gone = created.slice(0, 15).map((response) => response.body.personId as string);
    const deletes = await Promise.all(gone.map((id) => api.delete(`/v0/persons/${id}`)));
    expect(deletes.map((response) => response.status)).toEqual(deletes.map(() => 200));
    expect(await totalPersons(api)).toBe(25);

    while ((await server.database.foldRowCounts(4)) > 0) expect(await totalPersons(api)).toBe(25);
    expect(await changesLeft('tenant_row_count_changes')).toBe(0);
    expect(await totalPersons(api)).toBe(25);
    expect(await totalPersons(other)).toBe(1);
    // Each domain's account was made once, and counted once.
    expect((await api.get('/v0/accounts/search?limit=1')).body.totalCount).toBe(3);
  });

  it('are folded by the scheduled task', async () => {
    const client = await server.newTenant();
    await Promise.all([1, 2, 3].map((i) => client.post('/v0/persons', { name: `Folded ${i}` })));
    const fold = server.background().schedules.find((task) => task.name === 'row-counts.fold');
    await fold?.run(server.jobContext());
    expect(await changesLeft('tenant_row_count_changes')).toBe(0);
    expect(await totalPersons(client)).toBe(3);
  });
});

describe('audience rollups', () => {
  it('hold every one of concurrent batches of one audience, as does its person, and nothing stays staged', async () => {
    const person = (await api.post('/v0/persons', { name: 'Busy', email: 'busy@busy.example' })).body;
    const page = await trackedPage(api, { path: '/crowded', audiences: [{ personId: person.personId }] });
    const [audienceId] = page.audienceIds;
    const { token } = page;
    const at = Date.now();
    const batch = (session: number) =>
      api.request('POST', '/v0/public/events', {
        raw: JSON.stringify({
          token,
          sessionId: `crowded-${at}-${session % 20}`,
          events: [
            { type: 'interaction', at },
            { type: 'scroll', at, depth: 50 },
          ],
        }),
        headers: { 'content-type': 'application/json' },
      });
    // 40 batches of 20 sessions, each session's two at once: new sessions and changes of them.
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => batch(i)));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));

    const [item] = (await api.get(`/v0/pages/${page.pageId}/analytics/audiences`)).body.items;
    expect(item).toMatchObject({ audienceId, totalSessions: 20, avgInteractionsPerSession: 2 });
    const hours = await anyTables(server.database)
      .selectFrom('audience_hourly_stats')
      .select((eb) => [eb.fn.sum('sessions').as('sessions'), eb.fn.sum('interactions').as('interactions')])
      .where('audience_id', '=', audienceId)
      .executeTakeFirstOrThrow();
    expect([Number(hours.sessions), Number(hours.interactions)]).toEqual([20, 40]);
    const running = await anyTables(server.database)
      .selectFrom('audience_running_stats')
      .select(['sessions', 'interactions'])
      .where('audience_id', '=', audienceId)
      .orderBy('hour', 'desc')
      .executeTakeFirstOrThrow();
    expect([Number(running.sessions), Number(running.interactions)]).toEqual([20, 40]);
    expect(await changesLeft('audience_stat_changes')).toBe(0);

    const { latest_activity_at, account_id } = await anyTables(server.database)
      .selectFrom('persons')
      .select(['latest_activity_at', 'account_id'])
      .where('id', '=', person.personId)
      .executeTakeFirstOrThrow();
    expect(Number(latest_activity_at)).toBeGreaterThanOrEqual(at);
    const account = (await api.get(`/v0/accounts/${account_id}`)).body;
    expect(account.latestActivityAt).toBe(`+${latest_activity_at}`);
    expect(await changesLeft('person_activity_changes')).toBe(0);
  });
});
