import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import { keepServed, type ServedTables } from '../../src/workflows/page-view/served-store.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { publishLinkedPage } from '../helpers/pages.ts';
import { rawGet } from '../helpers/raw-get.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startTwoNodes, type TestServer, type TwoNodes } from '../helpers/server.ts';

/**
 * A person's erasure reaches what was written for them (src/workflows/person-erasure): the served
 * page, on every node, its previews, its versions, the store of served pages, the audience, their
 * form submissions and the events that carry them. docs/security.md#erasure.
 */

let nodes: TwoNodes;
let server: TestServer;
/** A second node on the same database, through a connection of its own. */
let other: TestServer;
let paths = 0;

beforeAll(async () => {
  nodes = await startTwoNodes();
  ({ server, other } = nodes);
});
afterAll(() => nodes.close());

function ok<T extends { status: number; body: unknown }>(response: T, status = 200): T {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response;
}

const PERSON = {
  name: 'Jane Doe',
  email: 'Jane.Doe@globex-erasure.example',
  phoneNumber: '+14155550123',
  linkedinProfileUrl: 'https://www.linkedin.com/in/jane-doe-globex',
};

/** Every way the test writes the person down, each of which must be gone. */
const TRACES = [/\bjane\b/i, /\bdoe\b/i, /jane\.doe@/i, /555.?0123/, /jane-doe-globex/i];

function tracesIn(text: string): string[] {
  return TRACES.filter((trace) => trace.test(text)).map(String);
}

/** The person's page as a visitor gets it from `node`. */
async function visit(node: TestServer, url: string): Promise<{ status: number; html: string }> {
  const answer = await rawGet(`${node.pagesUrl}${url}`);
  return { status: answer.status, html: answer.body.toString('utf8') };
}

/**
 * A tenant with the person, of the account Globex Retail, and a page for them at a live link: their
 * audience's context, name and overrides name them, and its version 1, generated then edited to name
 * them every way, is published.
 */
async function personalPage() {
  const client = await server.newTenant();
  const account = ok(
    await client.post('/v0/accounts', { domain: 'globex-erasure.example', name: 'Globex Retail' }),
    201,
  ).body;
  const person = ok(await client.post('/v0/persons', PERSON), 201).body;
  const page = await publishLinkedPage(server, client, {
    audience: {
      personId: person.personId,
      customName: 'Jane Doe (Globex)',
      supplementaryContext: 'Met Jane Doe at the expo. Lead with customer results.',
      actionFormInstructionsOverride: 'Jane, tell us what you need. We answer within a day.',
      metadataOverride: { title: 'A plan for Jane Doe', description: 'Pricing for Globex Retail.' },
    },
    personalize: false,
    path: `/erasure/page-${++paths}`,
  });
  await server.worker().drain();
  const audienceUrl = `/v0/pages/${page.pageId}/audiences/${page.audienceId}`;
  const versionId = ok(await client.get(audienceUrl)).body.latestVersion.versionId;
  const versionUrl = `${audienceUrl}/versions/${versionId}`;
  const generated = ok(await client.get(versionUrl)).body.content;
  ok(
    await client.patch(versionUrl, {
      content: {
        headline: 'Jane, here is your plan',
        subheadline: 'Made for Jane Doe. Shelf-gap alerts for every store.',
        sections: [
          {
            heading: 'What Globex gets',
            body: 'Alerts cut shelf gaps by half. Jane asked about pilots.\n\n- Call +1 (415) 555-0123 any time.\n- Pilots start within a week.\n- Profile: linkedin.com/in/jane-doe-globex.\n- Write to jane.doe@globex-erasure.example.',
          },
          { heading: 'For Jane', body: 'A plan of your own.' },
          ...generated.sections.slice(0, 2),
        ],
      },
    }),
  );
  ok(await client.post(`${audienceUrl}/publish`));
  return { ...page, api: client, person, account, audienceUrl, versionUrl, versionId };
}

describe('DELETE /v0/persons/{id}', () => {
  it('takes the person out of their page, its preview and versions, on every node, and out of the store', async () => {
    const page = await personalPage();
    const { api } = page;
    const theirs = await personalPage();
    const preview = `${page.versionUrl}/preview`;
    for (const node of [other, other, other, server]) {
      const before = await visit(node, page.url);
      expect(before.status).toBe(200);
      expect(tracesIn(before.html)).toEqual(TRACES.map(String));
    }
    expect(tracesIn(ok(await api.get(preview)).body)).toEqual(TRACES.map(String));

    ok(await api.delete(`/v0/persons/${page.person.personId}`));
    expect((await api.get(`/v0/persons/${page.person.personId}`)).status).toBe(404);

    // The other node had the page in memory: it serves it no more, and neither does this one.
    for (const node of [other, server, other, server]) {
      const after = await visit(node, page.url);
      expect(after.status).toBe(200);
      expect(after.html).toContain('<h1>');
      expect(tracesIn(after.html)).toEqual([]);
    }
    expect(tracesIn(ok(await api.get(preview)).body)).toEqual([]);
    expect(tracesIn(JSON.stringify(ok(await api.get(page.versionUrl)).body))).toEqual([]);
    const versions = ok(await api.get(`${page.audienceUrl}/versions`)).body.items;
    expect(tracesIn(JSON.stringify(versions))).toEqual([]);
    const kept = await anyTables(server.database)
      .selectFrom('served_pages')
      .select('html')
      .where('tenant_id', '=', api.tenantId)
      .execute();
    expect(kept.length).toBeGreaterThan(0);
    for (const row of kept) expect(tracesIn(row.html)).toEqual([]);

    // The copy that did not name them stays; the headline that did is the page's own.
    const baseline = versions.find((version: { versionNumber: number }) => version.versionNumber === 0);
    const content = ok(await api.get(page.versionUrl)).body.content;
    expect(content.headline).toBe(baseline.content.headline);
    expect(content.subheadline).toBe('Shelf-gap alerts for every store.');
    expect(content.sections[0]).toEqual({
      heading: 'What Globex gets',
      body: 'Alerts cut shelf gaps by half.\n\n- Pilots start within a week.',
    });
    expect(content.sections.map((section: { heading: string }) => section.heading)).not.toContain('For Jane');

    // Another tenant's person of the same name and email, and their page, are untouched.
    ok(await theirs.api.get(`/v0/persons/${theirs.person.personId}`));
    expect(tracesIn((await visit(other, theirs.url)).html)).toEqual(TRACES.map(String));
    expect(tracesIn(ok(await theirs.api.get(`${theirs.versionUrl}/preview`)).body)).toEqual(
      TRACES.map(String),
    );
  });

  it("makes the person's audience their account's, its own texts without them, and its next version is the account's", async () => {
    const page = await personalPage();
    const { api } = page;
    ok(await api.delete(`/v0/persons/${page.person.personId}`));
    const audience = ok(await api.get(page.audienceUrl)).body;
    expect(audience).toMatchObject({
      personId: null,
      accountId: page.account.accountId,
      personRouteKey: null,
      computedName: 'Globex Retail',
      customName: null,
      effectiveName: 'Globex Retail',
      supplementaryContext: 'Lead with customer results.',
      actionFormInstructionsOverride: 'We answer within a day.',
      metadataOverride: { description: 'Pricing for Globex Retail.' },
    });
    expect(tracesIn(JSON.stringify(audience))).toEqual([]);
    const listed = ok(await api.get(`/v0/audiences?accountId=${page.account.accountId}`)).body;
    expect(listed.items.map((item: { audienceId: string }) => item.audienceId)).toEqual([page.audienceId]);

    // Generated again and published, the page is written for the company and still names no one.
    const queued = ok(await api.post(`${page.audienceUrl}/versions`), 201).body;
    await server.worker().drain();
    ok(await api.post(`${page.audienceUrl}/publish`));
    const regenerated = ok(await api.get(`${page.audienceUrl}/versions/${queued.latestVersion.versionId}`));
    expect(regenerated.body.state).toBe('published');
    expect(tracesIn(JSON.stringify(regenerated.body))).toEqual([]);
    for (const node of [server, other]) expect(tracesIn((await visit(node, page.url)).html)).toEqual([]);
  });

  it('erases their form submissions and the events that carry them, pending deliveries included', async () => {
    const receiver = await startReceiver(() => ({ status: 503 }));
    try {
      const page = await personalPage();
      const { api } = page;
      const subscription = ok(
        await api.post('/v0/webhook_subscriptions', { url: receiver.url, events: ['form.submitted'] }),
        201,
      ).body;
      const token = (await visit(server, page.url)).html.match(/data-tailor-token="([^"]+)"/)?.[1];
      const submit = (email: string, name: string) =>
        server.visitor().post('/v0/public/forms', { token, email, fields: { name } });
      const hers = ok(await submit('JANE.DOE@globex-erasure.example', 'Jane Doe'), 201).body;
      const someoneElse = ok(await submit('sam@globex-erasure.example', 'Sam Roe'), 201).body;
      // Enriched: her submission is linked to her, and form.enriched carries her record.
      await server.worker().drain();
      expect(
        ok(await api.get(`/v0/form_submissions/${hers.formSubmissionId}`)).body.enrichment,
      ).toMatchObject({
        state: 'enriched',
        personId: page.person.personId,
      });
      const deliveriesUrl = `/v0/webhook_subscriptions/${subscription.subscriptionId}/deliveries`;
      const pending = ok(await api.get(deliveriesUrl)).body.items;
      expect(pending.map((delivery: { state: string }) => delivery.state)).toEqual(['pending', 'pending']);

      ok(await api.delete(`/v0/persons/${page.person.personId}`));

      expect((await api.get(`/v0/form_submissions/${hers.formSubmissionId}`)).status).toBe(404);
      ok(await api.get(`/v0/form_submissions/${someoneElse.formSubmissionId}`));
      expect(ok(await api.get(deliveriesUrl)).body.items).toHaveLength(1);
      const events = await anyTables(server.database)
        .selectFrom('events')
        .select(['type', 'data'])
        .where('tenant_id', '=', api.tenantId)
        .execute();
      expect(events.filter((event) => event.type.startsWith('form.'))).toHaveLength(2);
      for (const event of events) expect(tracesIn(event.data)).toEqual([]);
      await server.worker().drain();
      const found = ok(await api.get(`/v0/persons?email=${encodeURIComponent(PERSON.email)}`)).body;
      expect(found.items).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('cancels a generation under way for the person, which then stores nothing', async () => {
    const api = await server.newTenant();
    const person = ok(await api.post('/v0/persons', { name: 'Quinn Vale' }), 201).body;
    const page = await publishLinkedPage(server, api, {
      audience: { personId: person.personId },
      personalize: false,
      path: `/erasure/page-${++paths}`,
    });
    const audienceUrl = `/v0/pages/${page.pageId}/audiences/${page.audienceId}`;
    ok(await api.delete(`/v0/persons/${person.personId}`));
    await server.worker().drain();
    const audience = ok(await api.get(audienceUrl)).body;
    expect(audience).toMatchObject({ status: 'cancelled', personId: null, computedName: 'Audience 1' });
    const latest = ok(await api.get(`${audienceUrl}/versions/${audience.latestVersion.versionId}`)).body;
    expect(latest).toMatchObject({ state: 'cancelled', content: null });
    expect(latest.generationNote).toMatch(/erased/);
  });

  it('is refused to a read-only key (403), which erases nothing', async () => {
    const page = await personalPage();
    const key = await issueKey(anyTables(server.database), page.api.tenantId, { readOnly: true });
    const refused = await page.api.as(key.apiKey).delete(`/v0/persons/${page.person.personId}`);
    expect(refused.status).toBe(403);
    ok(await page.api.get(`/v0/persons/${page.person.personId}`));
    expect(tracesIn((await visit(other, page.url)).html)).toEqual(TRACES.map(String));
  });

  it("is 404 for another tenant's person, whose page keeps naming them", async () => {
    const page = await personalPage();
    const stranger = await server.newTenant();
    expect((await stranger.delete(`/v0/persons/${page.person.personId}`)).status).toBe(404);
    expect(tracesIn((await visit(server, page.url)).html)).toEqual(TRACES.map(String));
  });
});

describe('the served-pages store', () => {
  it('keeps no page rendered at a generation that a change has moved on from', async () => {
    const api = await server.newTenant();
    const page = await publishLinkedPage(server, api, {
      personalize: false,
      path: `/erasure/page-${++paths}`,
    });
    expect((await visit(server, page.url)).status).toBe(200);
    const tables = server.database.acrossTenants<ServedTables>();
    const ofTenant = () =>
      tables.selectFrom('served_pages').selectAll().where('tenant_id', '=', api.tenantId);
    const rendered = await ofTenant().executeTakeFirstOrThrow();
    // A change commits while a rendering made before it is on its way to be kept.
    ok(await api.request('PUT', '/v0/brands/acme', { body: { name: 'Acme after' } }), 201);
    await keepServed(tables, server.database.locks, { ...rendered, html: 'stale' });
    expect(await ofTenant().execute()).toEqual([]);
    expect((await visit(server, page.url)).html).toContain('Acme after');
  });
});
