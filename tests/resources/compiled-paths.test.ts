import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyTables } from '../helpers/any-tables.ts';
import { trackedPage } from '../helpers/pages.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

// The hot paths run compiled statements (src/db/compiled.ts); the endpoints beside them still build
// theirs per call. Both must answer the same bytes for the same rows.

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

async function text(url: string): Promise<string> {
  const response = await fetch(`${server.url}${url}`, { headers: { 'x-api-key': api.apiKey as string } });
  expect(response.status).toBe(200);
  return response.text();
}

describe('the compiled paths answer what the statements built per call answer', () => {
  it('POST /v0/persons and GET /v0/accounts/{id}', async () => {
    const created: { personId: string; slug: string }[] = [];
    for (const name of ['Ada Lovelace', 'Ada Lovelace', 'Charles Babbage']) {
      const email: string = `p${created.length}@compiled.example`;
      const response = await api.post('/v0/persons', { name, email, phoneNumber: '+15550100' });
      expect(response.status).toBe(201);
      created.push(response.body);
    }
    expect(created.map((person) => person.slug)).toEqual([
      'ada-lovelace',
      'ada-lovelace-2',
      'charles-babbage',
    ]);

    // A person as created and read by id (compiled) is the same bytes as in the list (built per call).
    const listed = await text('/v0/persons?limit=100');
    for (const person of created) {
      const one = await text(`/v0/persons/${person.personId}`);
      expect(one).toBe(JSON.stringify(person));
      expect(listed).toContain(one);
    }

    // The account (compiled) is its search item (built per call) with its persons as listed.
    const search = (await api.get('/v0/accounts/search?query=compiled.example')).body;
    const { linkedPersonsCount, ...fields } = search.items[0];
    expect(linkedPersonsCount).toBe(3);
    const persons = (await api.get('/v0/persons?limit=100')).body.items;
    const account = await text(`/v0/accounts/${fields.accountId}`);
    expect(JSON.parse(account)).toStrictEqual({ ...fields, linkedPersons: persons });
    expect(account).toContain(JSON.stringify(persons));
  });

  it('POST /v0/public/events: the session and its hour as the sessions say', async () => {
    const page = await trackedPage(api, { path: '/compiled' });
    const [audienceId] = page.audienceIds;
    const { token } = page;
    const at = Date.now();
    const batches = [
      ['session-one', [{ type: 'session_start', at }]],
      [
        'session-one',
        [
          { type: 'interaction', at },
          { type: 'scroll', at, depth: 60 },
        ],
      ],
      [
        'session-two',
        [
          { type: 'time', at, ms: 20_000 },
          { type: 'cta_click', at, actionId: 'cta' },
        ],
      ],
      ['session-one', [{ type: 'time', at, ms: 3_000 }]],
    ] as const;
    for (const [sessionId, events] of batches) {
      const response = await server.visitor().post('/v0/public/events', { token, sessionId, events });
      expect(response.body).toEqual({ accepted: events.length });
    }

    const db = anyTables(server.database);
    const sessions = await db
      .selectFrom('sessions')
      .select(['id', 'interactions', 'cta_clicks', 'max_scroll_depth', 'time_spent_ms'])
      .where('audience_id', '=', audienceId)
      .orderBy('id')
      .execute();
    expect(sessions).toEqual([
      { id: 'session-one', interactions: 1, cta_clicks: 0, max_scroll_depth: 60, time_spent_ms: 3_000 },
      { id: 'session-two', interactions: 0, cta_clicks: 1, max_scroll_depth: 0, time_spent_ms: 20_000 },
    ]);
    const hours = await db
      .selectFrom('audience_hourly_stats')
      .select(['sessions', 'interactions', 'scroll_depth_sum', 'time_spent_ms_sum', 'bounces', 'conversions'])
      .where('audience_id', '=', audienceId)
      .execute();
    const fromSessions = await db
      .selectFrom('sessions')
      .select([
        sql<number>`count(*)`.as('sessions'),
        sql<number>`sum(interactions)`.as('interactions'),
        sql<number>`sum(max_scroll_depth)`.as('scroll_depth_sum'),
        sql<number>`sum(time_spent_ms)`.as('time_spent_ms_sum'),
        sql<number>`sum(case when interactions = 0 and cta_clicks = 0 and form_submits = 0 and time_spent_ms < 10000 then 1 else 0 end)`.as(
          'bounces',
        ),
        sql<number>`sum(case when cta_clicks > 0 or form_submits > 0 then 1 else 0 end)`.as('conversions'),
      ])
      .where('audience_id', '=', audienceId)
      .execute();
    expect(
      hours.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]))),
    ).toEqual(
      fromSessions.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]))),
    );
    expect(hours[0]?.sessions).toBe(2);
  });
});
