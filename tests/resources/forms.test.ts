import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { claimJobs } from '../../src/jobs/store.ts';
import type { Worker } from '../../src/jobs/worker.ts';
import { issueToken, TOKEN_VALID_MS } from '../../src/public/token.ts';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import {
  FormEnrichmentFailedData,
  FormSubmission,
  FormSubmissionAccepted,
  FormSubmissionList,
  FormSubmittedData,
} from '../../src/resources/forms/schema.ts';
import { Signer } from '../../src/shared/signing.ts';
import { Account } from '../../src/workflows/account-view/schema.ts';
import { enrichmentJob } from '../../src/workflows/enrichment/job.ts';
import type { EnrichmentProvider } from '../../src/workflows/enrichment/provider.ts';
import { FormEnrichedData } from '../../src/workflows/enrichment/schema.ts';
import { ENRICH_JOB } from '../../src/workflows/enrichment/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, type Response, startServer, TEST_SECRET, type TestServer } from '../helpers/server.ts';

const FORMS = '/v0/public/forms';
const FORM_EVENTS = ['form.submitted', 'form.enriched', 'form.enrichment_failed'];
const signer = new Signer(TEST_SECRET);

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Origin {
  tenantId: string;
  pageId: string;
  audienceId: string;
  pageLinkId: string;
  /** The version the page shows: the audience's published one (version 0, as none was generated). */
  versionId: string;
}

/** A published page with an audience and a link to it: what a public page's token names. */
async function publicPage(client: Client): Promise<Origin> {
  const page = await client.post('/v0/pages', {
    name: 'Spring launch',
    pageContext: 'Tailor helps retailers grow.',
    brandId: 'b',
    actions: [{ buttonTitle: 'Talk to sales', actionType: 'form' }],
    actionCardWidgets: [],
    scripts: [],
  });
  expect(page.status, JSON.stringify(page.body)).toBe(201);
  expect((await client.post(`/v0/pages/${page.body.pageId}/publish`)).status).toBe(200);
  const audience = await client.post(`/v0/pages/${page.body.pageId}/audiences`, {});
  expect(audience.status, JSON.stringify(audience.body)).toBe(201);
  const link = await client.post('/v0/page_links', {
    path: `/spring-${Math.random().toString(36).slice(2, 10)}`,
    target: { targetType: 'audience', audienceId: audience.body.audienceId },
  });
  expect(link.status, JSON.stringify(link.body)).toBe(201);
  return {
    tenantId: client.tenantId,
    pageId: page.body.pageId,
    audienceId: audience.body.audienceId,
    pageLinkId: link.body.pageLinkId,
    versionId: audience.body.publishedVersion.versionId,
  };
}

function tokenFor(origin: Origin, expiresAt = Date.now() + TOKEN_VALID_MS, by = signer): string {
  return issueToken(by, { ...origin, arm: 'personalized', expiresAt });
}

/** A tenant with a public page and a subscription to the form events, delivered to a local receiver. */
async function setup() {
  const client = await server.newTenant();
  const origin = await publicPage(client);
  const hooks = await startReceiver();
  cleanups.push(hooks.close);
  const subscription = await client.post('/v0/webhook_subscriptions', {
    url: hooks.url,
    events: FORM_EVENTS,
  });
  expect(subscription.status, JSON.stringify(subscription.body)).toBe(201);
  cleanups.push(() => client.delete(`/v0/webhook_subscriptions/${subscription.body.subscriptionId}`));
  return { client, origin, token: tokenFor(origin), hooks };
}

function submit(body: unknown, headers?: Record<string, string>) {
  return server.anonymous().post(FORMS, body, { headers });
}

/** Runs every job due now, and the jobs those enqueue, until nothing is left. */
async function settle(worker: Worker = server.worker()): Promise<void> {
  while ((await worker.drain()) > 0);
}

function submissionRow(id: string) {
  return anyTables(server.database)
    .selectFrom('form_submissions')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
}

async function storedCount(tenantId: string): Promise<{ submissions: number; events: number; jobs: number }> {
  const db = anyTables(server.database);
  const count = async (table: 'form_submissions' | 'events' | 'jobs') => {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  return {
    submissions: await count('form_submissions'),
    events: await count('events'),
    jobs: await count('jobs'),
  };
}

function eventsOf(hooks: { events(): { type: string; data: any }[] }, type: string) {
  return hooks.events().filter((event) => event.type === type);
}

const domain = () => `co-${Math.random().toString(36).slice(2, 10)}.example`;

describe('POST /v0/public/forms', () => {
  it('stores the submission and delivers form.submitted with the submission', async () => {
    const { origin, token, hooks } = await setup();
    const fields = { name: 'Jane Doe', company: 'Acme', message: 'Call me' };
    const before = Date.now();
    const response = await submit({ token, email: `jane@${domain()}`, fields });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expectSchema(FormSubmissionAccepted, response.body);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const { formSubmissionId, submittedAt } = response.body;
    expect(Number(submittedAt.slice(1))).toBeGreaterThanOrEqual(before);

    const row = await submissionRow(formSubmissionId);
    expect(row).toMatchObject({
      tenant_id: origin.tenantId,
      page_id: origin.pageId,
      audience_id: origin.audienceId,
      page_link_id: origin.pageLinkId,
      session_id: null,
      arm: 'personalized',
      version_id: origin.versionId,
      enrichment_state: 'pending',
      enrichment_failure: null,
      person_id: null,
      account_id: null,
    });
    expect(JSON.parse(String(row?.fields))).toEqual(fields);

    await settle();
    const [submitted] = eventsOf(hooks, 'form.submitted');
    expectSchema(FormSubmittedData, submitted?.data);
    expect(submitted?.data).toEqual({
      formSubmissionId,
      pageId: origin.pageId,
      audienceId: origin.audienceId,
      pageLinkId: origin.pageLinkId,
      email: row?.email,
      fields,
      submittedAt,
    });
  });

  it('accepts a text/plain body holding JSON (sendBeacon)', async () => {
    const { token } = await setup();
    const response = await server.anonymous().request('POST', FORMS, {
      raw: JSON.stringify({ token, fields: { email: `sam@${domain()}` } }),
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect((await submissionRow(response.body.formSubmissionId))?.enrichment_state).toBe('pending');
  });

  it('takes the address from `email`, else from `fields.email`', async () => {
    const { token } = await setup();
    const fromField = await submit({ token, fields: { email: 'field@acme.example' } });
    expect((await submissionRow(fromField.body.formSubmissionId))?.email).toBe('field@acme.example');
    const both = await submit({ token, email: 'body@acme.example', fields: { email: 'field@acme.example' } });
    expect((await submissionRow(both.body.formSubmissionId))?.email).toBe('body@acme.example');
    const blank = await submit({ token, email: ' ', fields: { email: 'field@acme.example' } });
    expect((await submissionRow(blank.body.formSubmissionId))?.email).toBe('field@acme.example');
    const none = await submit({ token, fields: {} });
    expect((await submissionRow(none.body.formSubmissionId))?.email).toBeNull();
  });

  it("counts the submission in the visitor's session", async () => {
    const { client, origin, token } = await setup();
    const sessionId = `session-${Math.random().toString(36).slice(2, 12)}`;
    const response = await submit({ token, sessionId, fields: { email: `kim@${domain()}` } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect((await submissionRow(response.body.formSubmissionId))?.session_id).toBe(sessionId);
    const session = await anyTables(server.database)
      .selectFrom('sessions')
      .select(['form_submits', 'audience_id'])
      .where('tenant_id', '=', origin.tenantId)
      .where('id', '=', sessionId)
      .executeTakeFirst();
    expect(session).toEqual({ form_submits: 1, audience_id: origin.audienceId });
    const analytics = await client.get(`/v0/pages/${origin.pageId}/analytics/audiences`);
    expect(analytics.status, JSON.stringify(analytics.body)).toBe(200);
    expect(analytics.body.items[0]).toMatchObject({
      totalSessions: 1,
      formSubmitCount: 1,
      conversionCount: 1,
    });
  });

  it("accepts the token of a served page, sent as the page's own form sends it, and says what it showed", async () => {
    const { client, origin, hooks } = await setup();
    const tenant = await anyTables(server.database)
      .selectFrom('tenants')
      .select('slug')
      .where('id', '=', origin.tenantId)
      .executeTakeFirstOrThrow();
    const link = await anyTables(server.database)
      .selectFrom('page_links')
      .select('path')
      .where('id', '=', origin.pageLinkId)
      .executeTakeFirstOrThrow();
    const page = await fetch(`${server.pagesUrl}/p/${tenant.slug}${link.path}`);
    expect(page.status).toBe(200);
    const token = (await page.text()).match(/data-tailor-token="([^"]+)"/)?.[1];
    expect(token).toBeDefined();
    const email = `lee@${domain()}`;
    const response = await submit({
      token,
      sessionId: crypto.randomUUID(),
      email,
      fields: { name: 'Lee Park', company: 'Park & Co', message: 'Hello' },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    await settle();
    expect(eventsOf(hooks, 'form.enriched')[0]?.data.person).toMatchObject({ name: 'Lee Park', email });
    const lead = await client.get(`/v0/form_submissions/${response.body.formSubmissionId}`);
    expect(lead.body).toMatchObject({ arm: 'personalized', versionId: origin.versionId });
  });

  it('keeps the lead of a token signed before tokens named a version: its arm, and no version', async () => {
    const { client, origin } = await setup();
    const { versionId: _, ...older } = origin;
    for (const arm of ['personalized', 'baseline'] as const) {
      const token = issueToken(signer, { ...older, arm, expiresAt: Date.now() + TOKEN_VALID_MS });
      const response = await submit({ token, fields: { email: `old@${domain()}` } });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      const lead = await client.get(`/v0/form_submissions/${response.body.formSubmissionId}`);
      expectSchema(FormSubmission, lead.body);
      expect(lead.body).toMatchObject({ arm, versionId: null });
    }
  });

  it("stores the submission even when the session id is another page's session, without counting it", async () => {
    const { client, origin, token } = await setup();
    const other = await publicPage(client);
    const sessionId = `elsewhere-${Math.random().toString(36).slice(2, 12)}`;
    const started = await server.anonymous().post('/v0/public/events', {
      token: tokenFor(other),
      sessionId,
      events: [{ type: 'session_start', at: Date.now() }],
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const response = await submit({ token, sessionId, fields: { email: `pat@${domain()}` } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(await submissionRow(response.body.formSubmissionId)).toMatchObject({
      audience_id: origin.audienceId,
      session_id: sessionId,
    });
    const session = await anyTables(server.database)
      .selectFrom('sessions')
      .select(['audience_id', 'form_submits'])
      .where('tenant_id', '=', origin.tenantId)
      .where('id', '=', sessionId)
      .executeTakeFirst();
    expect(session).toEqual({ audience_id: other.audienceId, form_submits: 0 });
  });

  describe('refuses, and stores nothing', () => {
    type Context = Awaited<ReturnType<typeof setup>>;

    /** A 400 naming `path`, and not a row, event or job more in the tenant the token names. */
    async function expectRefused({ origin, hooks }: Context, body: unknown, path: string) {
      const before = await storedCount(origin.tenantId);
      const response = await submit(body);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body).toMatchObject({ code: 'validation_failed', status: 400 });
      expect(response.body.errors.map((error: { path: string }) => error.path)).toContain(path);
      expect(await storedCount(origin.tenantId)).toEqual(before);
      await settle();
      expect(hooks.received).toHaveLength(0);
    }

    const fields = { email: 'jane@acme.example' };

    it('a forged token', async () => {
      const context = await setup();
      const forged = tokenFor(
        context.origin,
        undefined,
        new Signer('another-secret-another-secret-0123456789'),
      );
      await expectRefused(context, { token: forged, fields }, '/body/token');
      await expectRefused(context, { token: 'not-a-token', fields }, '/body/token');
      await expectRefused(context, { token: `${context.token}x`, fields }, '/body/token');
    });

    it('an altered token', async () => {
      const context = await setup();
      const { origin, token } = context;
      const [, signature] = token.split('.');
      const claims = { t: origin.tenantId, p: origin.pageId, a: origin.audienceId, l: origin.pageLinkId };
      const later = Date.now() + 10 * TOKEN_VALID_MS;
      const altered = Buffer.from(JSON.stringify({ ...claims, e: later })).toString('base64url');
      await expectRefused(context, { token: `${altered}.${signature}`, fields }, '/body/token');
    });

    it('an expired token', async () => {
      const context = await setup();
      await expectRefused(
        context,
        { token: tokenFor(context.origin, Date.now() - 1000), fields },
        '/body/token',
      );
    });

    it('oversized fields', async () => {
      const context = await setup();
      const { token } = context;
      await expectRefused(context, { token, fields: { message: 'x'.repeat(5001) } }, '/body/fields/message');
      const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`field${i}`, 'x']));
      await expectRefused(context, { token, fields: many }, '/body/fields');
      await expectRefused(context, { token, fields: { ['n'.repeat(101)]: 'x' } }, '/body/fields');
      await expectRefused(context, { token, fields: { count: 3 } }, '/body/fields/count');
      const long = `${'a'.repeat(320)}@acme.example`;
      await expectRefused(context, { token, email: long, fields: {} }, '/body/email');
    });

    it('a body over 64 KiB, with 413 payload_too_large: 50 fields of 5,000 emoji, or of 1,400 letters', async () => {
      const context = await setup();
      const { origin, token, hooks } = context;
      const before = await storedCount(origin.tenantId);
      const fieldsOf = (value: string) =>
        Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`field${i}`, value]));
      const bodies = [
        JSON.stringify({ token, fields: fieldsOf('😀'.repeat(5_000)) }),
        JSON.stringify({ token, fields: fieldsOf('x'.repeat(1_400)) }),
      ];
      for (const raw of bodies) {
        for (const type of ['application/json', 'text/plain;charset=UTF-8']) {
          const response = await server.anonymous().request('POST', FORMS, {
            raw,
            headers: { 'content-type': type },
          });
          expect(response.status, JSON.stringify(response.body)).toBe(413);
          expect(response.body).toMatchObject({ code: 'payload_too_large' });
          expect(response.body.detail).toContain('64 KiB');
        }
      }
      expect(await storedCount(origin.tenantId)).toEqual(before);
      await settle();
      expect(hooks.received).toHaveLength(0);
    });

    it('takes a full form within 64 KiB: 50 fields of 1,200 letters', async () => {
      const { token } = await setup();
      const fields = Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`field${i}`, 'x'.repeat(1_200)]),
      );
      const response = await submit({ token, fields });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
    });

    it('unknown body fields, a missing `fields`, a malformed session id', async () => {
      const context = await setup();
      const { token } = context;
      await expectRefused(context, { token, fields, name: 'Jane' }, '/body/name');
      await expectRefused(context, { token }, '/body/fields');
      await expectRefused(context, { token, fields, sessionId: 'short' }, '/body/sessionId');
      await expectRefused(context, { token, fields, sessionId: 'has spaces in it' }, '/body/sessionId');
    });
  });
});

describe('enrichment', () => {
  it('creates the person, links the account, logs the activity and delivers form.enriched', async () => {
    const { client, origin, token, hooks } = await setup();
    const company = domain();
    const colleague = await client.post('/v0/persons', { name: 'Colleague', email: `boss@${company}` });
    expect(colleague.status).toBe(201);
    const accountId = (await client.get(`/v0/accounts/search?query=${company}`)).body.items[0].accountId;
    expect((await client.get(`/v0/accounts/${accountId}`)).body.latestActivityAt).toBeNull();

    const email = `Jane.Doe@${company.toUpperCase()}`;
    const fields = { name: 'Jane Doe', message: 'Please call' };
    const before = Date.now();
    const response = await submit({ token, email, fields });
    expect(response.status).toBe(201);
    await settle();

    const person = (await client.get(`/v0/persons?email=${encodeURIComponent(email)}`)).body.items[0];
    expect(person).toMatchObject({ name: 'Jane Doe', email, domain: company });
    const account = (await client.get(`/v0/accounts/${accountId}`)).body;
    expectSchema(Account, account);
    expect(account.linkedPersons.map((p: { personId: string }) => p.personId)).toContain(person.personId);
    expect(Number(account.latestActivityAt.slice(1))).toBeGreaterThanOrEqual(before);

    const logs = (await client.get(`/v0/persons/${person.personId}/logs`)).body.items;
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ kind: 'activity', source: 'visitor' });
    expect(logs[0].text).toContain(response.body.formSubmissionId);
    expect(logs[0].text).toContain('Spring launch');
    expect(logs[0].text).toContain('message: Please call');

    const [enriched] = eventsOf(hooks, 'form.enriched');
    expectSchema(FormEnrichedData, enriched?.data);
    expect(enriched?.data).toEqual({
      formSubmissionId: response.body.formSubmissionId,
      person,
      account: {
        accountId,
        domain: company,
        name: null,
        createdAt: account.createdAt,
        updatedAt: account.updatedAt,
        latestActivityAt: account.latestActivityAt,
      },
    });
    expect(await submissionRow(response.body.formSubmissionId)).toMatchObject({
      tenant_id: origin.tenantId,
      enrichment_state: 'enriched',
      enrichment_failure: null,
      person_id: person.personId,
      account_id: accountId,
    });
  });

  it('finds an existing person by email, case-insensitively, and keeps their name', async () => {
    const { client, token, hooks } = await setup();
    const company = domain();
    const existing = (await client.post('/v0/persons', { name: 'Robin Known', email: `robin@${company}` }))
      .body;
    const response = await submit({ token, email: `ROBIN@${company}`, fields: { name: 'Someone Else' } });
    await settle();
    const persons = await client.get(`/v0/persons?email=robin@${company}`);
    expect(persons.body.totalCount).toBe(1);
    expect(persons.body.items[0]).toMatchObject({ personId: existing.personId, name: 'Robin Known' });
    expect(eventsOf(hooks, 'form.enriched')[0]?.data.person.personId).toBe(existing.personId);
    expect((await submissionRow(response.body.formSubmissionId))?.person_id).toBe(existing.personId);
  });

  it.each([
    ['jane.doe@gmail.com', { name: 'Jane Doe' }, 'Jane Doe', 'gmail.com'],
    ['Jane.Doe@Yahoo.co.uk', {}, 'Jane Doe', 'yahoo.co.uk'],
    ['someone@gmx.de', { message: 'Hi' }, 'Someone', 'gmx.de'],
  ])(
    'keeps the lead of a free-mail address (%s): a person without an account, form.enriched with account null',
    async (email, fields, name, freeDomain) => {
      const { client, token, hooks } = await setup();
      const response = await submit({ token, fields: { ...fields, email } });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      await settle();
      const { formSubmissionId } = response.body;

      const found = await client.get(`/v0/persons?email=${encodeURIComponent(email)}`);
      expect(found.body.totalCount).toBe(1);
      const person = found.body.items[0];
      expect(person).toMatchObject({ name, email, domain: freeDomain });
      const accounts = await client.get('/v0/accounts/search');
      expect(accounts.body.totalCount).toBe(0);

      expect(eventsOf(hooks, 'form.enrichment_failed')).toHaveLength(0);
      const [enriched] = eventsOf(hooks, 'form.enriched');
      expectSchema(FormEnrichedData, enriched?.data);
      expect(enriched?.data).toEqual({ formSubmissionId, person, account: null });
      const logs = (await client.get(`/v0/persons/${person.personId}/logs`)).body.items;
      expect(logs.map((entry: { kind: string; source: string }) => [entry.kind, entry.source])).toEqual([
        ['activity', 'visitor'],
      ]);
      const read = await client.get(`/v0/form_submissions/${formSubmissionId}`);
      expect(read.body.enrichment).toMatchObject({
        state: 'enriched',
        reason: null,
        personId: person.personId,
        accountId: null,
      });
    },
  );

  it('a later submission from the same free-mail address, in other case, finds the person it made', async () => {
    const { client, token, hooks } = await setup();
    const first = await submit({ token, fields: { name: 'Ada Free', email: 'ada.free@gmail.com' } });
    await settle();
    const second = await submit({ token, email: 'ADA.FREE@GMAIL.COM', fields: { name: 'Someone Else' } });
    await settle();
    const persons = await client.get('/v0/persons');
    expect(persons.body.totalCount).toBe(1);
    expect(persons.body.items[0]).toMatchObject({ name: 'Ada Free', email: 'ada.free@gmail.com' });
    const enriched = eventsOf(hooks, 'form.enriched').map((event) => event.data);
    expect(enriched.map((data) => [data.formSubmissionId, data.person.personId, data.account])).toEqual([
      [first.body.formSubmissionId, persons.body.items[0].personId, null],
      [second.body.formSubmissionId, persons.body.items[0].personId, null],
    ]);
  });

  it("a free-mail address of a person the tenant linked to a company gets that person's account", async () => {
    const { client, token, hooks } = await setup();
    const company = domain();
    const known = await client.post('/v0/persons', {
      name: 'Kim Known',
      email: 'kim.known@outlook.com',
      domain: company,
    });
    expect(known.status, JSON.stringify(known.body)).toBe(201);
    const response = await submit({ token, email: 'Kim.Known@Outlook.com', fields: {} });
    await settle();
    const [enriched] = eventsOf(hooks, 'form.enriched');
    expect(enriched?.data.person.personId).toBe(known.body.personId);
    expect(enriched?.data.account).toMatchObject({ domain: company });
    const read = await client.get(`/v0/form_submissions/${response.body.formSubmissionId}`);
    expect(read.body.enrichment.accountId).toBe(enriched?.data.account.accountId);
  });

  it('names a new person after the address when the form has no name', async () => {
    const { client, token } = await setup();
    const email = `mary-ann.smith+promo@${domain()}`;
    await submit({ token, fields: { email } });
    await settle();
    const person = (await client.get(`/v0/persons?email=${encodeURIComponent(email)}`)).body.items[0];
    expect(person.name).toBe('Mary Ann Smith');
    expect(person.slug).toBe('mary-ann-smith');
  });

  it.each([
    ['no_email', { fields: { name: 'Anonymous' } }],
    ['no_email', { email: '   ', fields: {} }],
    ['invalid_email', { fields: { email: 'not-an-address' } }],
    ['invalid_email', { email: 'jane@localhost', fields: {} }],
  ])('fails with %s and delivers form.enrichment_failed (%j)', async (reason, body) => {
    const { client, token, hooks } = await setup();
    const response = await submit({ token, ...body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    await settle();
    const { formSubmissionId } = response.body;
    const [failed] = eventsOf(hooks, 'form.enrichment_failed');
    expectSchema(FormEnrichmentFailedData, failed?.data);
    expect(failed?.data).toEqual({ formSubmissionId, reason });
    expect(eventsOf(hooks, 'form.enriched')).toHaveLength(0);
    expect(await submissionRow(formSubmissionId)).toMatchObject({
      enrichment_state: 'failed',
      enrichment_failure: reason,
      person_id: null,
    });
    expect((await client.get('/v0/persons')).body.totalCount).toBe(0);
  });

  describe('with a provider that fails', () => {
    function workerWith(provider: EnrichmentProvider): Worker {
      return server.worker({ handlers: server.handlersWith(enrichmentJob(provider)) });
    }

    const down: EnrichmentProvider = {
      name: 'down',
      enrich: async () => {
        throw new Error('lookup service unavailable');
      },
    };

    it('retries, then fails with provider_error', async () => {
      const { client, token, hooks } = await setup();
      const response = await submit({ token, email: `jane@${domain()}`, fields: {} });
      const worker = workerWith(down);
      await settle(worker);
      const { formSubmissionId } = response.body;
      expect((await submissionRow(formSubmissionId))?.enrichment_state).toBe('pending');
      expect(eventsOf(hooks, 'form.enrichment_failed')).toHaveLength(0);

      // Each retry waits longer; travelling a day ahead makes every remaining one due.
      for (let attempt = 2; attempt <= 5; attempt++) await worker.drain(Date.now() + 24 * 60 * 60 * 1000);
      await settle(worker);
      expect(eventsOf(hooks, 'form.enrichment_failed').map((event) => event.data)).toEqual([
        { formSubmissionId, reason: 'provider_error' },
      ]);
      expect(await submissionRow(formSubmissionId)).toMatchObject({
        enrichment_state: 'failed',
        enrichment_failure: 'provider_error',
      });
      expect((await client.get('/v0/persons')).body.totalCount).toBe(0);
    });

    it('enriches on a later attempt once the provider is back', async () => {
      const { token, hooks } = await setup();
      let calls = 0;
      const flaky: EnrichmentProvider = {
        name: 'flaky',
        async enrich(request) {
          calls++;
          if (calls === 1) throw new Error('timeout');
          return { outcome: 'identified', submitter: { email: String(request.email), name: 'Back Again' } };
        },
      };
      const response = await submit({ token, email: `back@${domain()}`, fields: {} });
      const worker = workerWith(flaky);
      await settle(worker);
      await worker.drain(Date.now() + 60_000);
      await settle(worker);
      expect(calls).toBe(2);
      expect((await submissionRow(response.body.formSubmissionId))?.enrichment_state).toBe('enriched');
      expect(eventsOf(hooks, 'form.enriched')[0]?.data.person.name).toBe('Back Again');
    });
  });
});

describe('GET /v0/form_submissions', () => {
  const LIST = '/v0/form_submissions';

  /** The ids of every page of the list at `query`, read `limit` at a time, and each page's totalCount. */
  async function readAll(client: Client, query: string, limit: number) {
    const ids: string[] = [];
    const totals = new Set<number>();
    let cursor: string | null = null;
    do {
      const url: string = `${LIST}?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page: Response = await client.get(url);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(limit);
      expect(page.body.nextCursor !== null).toBe(page.body.hasMore);
      ids.push(...page.body.items.map((item: { formSubmissionId: string }) => item.formSubmissionId));
      totals.add(page.body.totalCount);
      cursor = page.body.nextCursor;
    } while (cursor);
    return { ids, totals: [...totals] };
  }

  /**
   * Submissions on two pages of one tenant, oldest first: three enriched and one failed on the
   * first page, one enriched on the second; then one pending on each.
   */
  async function leads() {
    const context = await setup();
    const other = await publicPage(context.client);
    const otherToken = tokenFor(other);
    const ids: string[] = [];
    const send = async (token: string, body: object) => {
      const response = await submit({ token, fields: {}, ...body });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      ids.push(response.body.formSubmissionId);
      return response.body.formSubmissionId as string;
    };
    const company = domain();
    const enriched = [
      await send(context.token, { email: `a@${company}` }),
      await send(context.token, { email: 'b.free@gmail.com' }),
      await send(otherToken, { email: `c@${company}` }),
      await send(context.token, { email: `d@${company}` }),
    ];
    const failed = await send(context.token, { fields: { name: 'No address' } });
    await settle();
    const pending = [await send(context.token, { email: `e@${company}` }), await send(otherToken, {})];
    return { ...context, other, ids, enriched, failed, pending };
  }

  it('lists every submission newest first, across pages of `limit`, with the exact totalCount', async () => {
    const { client, ids } = await leads();
    const newestFirst = [...ids].reverse();
    for (const limit of [1, 2, 3, 100]) {
      expect(await readAll(client, '', limit)).toEqual({ ids: newestFirst, totals: [ids.length] });
    }
    const first = await client.get(`${LIST}?limit=2`);
    expectSchema(FormSubmissionList, first.body);
    expect(first.body.hasMore).toBe(true);
  });

  it('filters by page, audience and enrichment state, alone and together', async () => {
    const { client, origin, other, ids, enriched, failed, pending } = await leads();
    const newest = (list: string[]) => ids.filter((id) => list.includes(id)).reverse();
    const onOther = [enriched[2] as string, pending[1] as string];
    const onFirst = ids.filter((id) => !onOther.includes(id));
    const cases: [string, string[]][] = [
      [`pageId=${origin.pageId}`, newest(onFirst)],
      [`pageId=${other.pageId}`, newest(onOther)],
      [`audienceId=${origin.audienceId}`, newest(onFirst)],
      [`audienceId=${other.audienceId}`, newest(onOther)],
      ['enrichment=enriched', newest(enriched)],
      ['enrichment=failed', [failed]],
      ['enrichment=pending', newest(pending)],
      [`pageId=${origin.pageId}&enrichment=enriched`, newest(enriched.filter((id) => onFirst.includes(id)))],
      [`audienceId=${other.audienceId}&enrichment=pending`, [pending[1] as string]],
      [`pageId=${origin.pageId}&audienceId=${other.audienceId}`, []],
    ];
    for (const [query, expected] of cases) {
      expect(await readAll(client, query, 2), query).toEqual({ ids: expected, totals: [expected.length] });
    }
  });

  it('refuses a filter value that is not one (400), and a cursor of other filters (400 invalid_cursor)', async () => {
    const { client, origin } = await leads();
    for (const query of [
      'enrichment=done',
      'enrichment=',
      'pageId=not-a-page',
      `pageId=${origin.audienceId}`,
      `audienceId=${origin.pageId}`,
      'audienceId=audience_1',
      'limit=0',
      'limit=101',
    ]) {
      const response = await client.get(`${LIST}?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.code, query).toBe('validation_failed');
    }
    const page = await client.get(`${LIST}?limit=1&pageId=${origin.pageId}`);
    const cursor = encodeURIComponent(page.body.nextCursor);
    const elsewhere = await client.get(`${LIST}?limit=1&cursor=${cursor}`);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.code).toBe('invalid_cursor');
    const resumed = await client.get(`${LIST}?limit=1&pageId=${origin.pageId}&cursor=${cursor}`);
    expect(resumed.status).toBe(200);
  });

  it('GET one: pending, then enriched with the person, account and finishedAt', async () => {
    const { client, origin, token } = await setup();
    const company = domain();
    const email = `lead@${company}`;
    const fields = { name: 'Lee Lead', message: 'Call me' };
    const response = await submit({ token, email, fields });
    const { formSubmissionId, submittedAt } = response.body;
    const url = `/v0/form_submissions/${formSubmissionId}`;

    const pending = await client.get(url);
    expect(pending.status).toBe(200);
    expectSchema(FormSubmission, pending.body);
    expect(pending.body).toEqual({
      formSubmissionId,
      pageId: origin.pageId,
      audienceId: origin.audienceId,
      pageLinkId: origin.pageLinkId,
      email,
      fields,
      submittedAt,
      arm: 'personalized',
      versionId: origin.versionId,
      enrichment: { state: 'pending', reason: null, personId: null, accountId: null, finishedAt: null },
    });

    await settle();
    const after = Date.now();
    const enriched = await client.get(url);
    expectSchema(FormSubmission, enriched.body);
    const person = (await client.get(`/v0/persons?email=${email}`)).body.items[0];
    const account = (await client.get(`/v0/accounts/search?query=${company}`)).body.items[0];
    expect(enriched.body.enrichment).toEqual({
      state: 'enriched',
      reason: null,
      personId: person.personId,
      accountId: account.accountId,
      finishedAt: expect.stringMatching(/^\+\d+$/),
    });
    const finishedAt = Number(enriched.body.enrichment.finishedAt.slice(1));
    expect(finishedAt).toBeGreaterThanOrEqual(Number(submittedAt.slice(1)));
    expect(finishedAt).toBeLessThanOrEqual(after);
    const listed = await client.get(`/v0/form_submissions?pageId=${origin.pageId}`);
    expect(listed.body.items).toEqual([enriched.body]);
  });

  it('GET one: failed with its reason', async () => {
    const { client, token } = await setup();
    const response = await submit({ token, fields: { email: 'not-an-address' } });
    await settle();
    const failed = await client.get(`/v0/form_submissions/${response.body.formSubmissionId}`);
    expectSchema(FormSubmission, failed.body);
    expect(failed.body.email).toBe('not-an-address');
    expect(failed.body.enrichment).toEqual({
      state: 'failed',
      reason: 'invalid_email',
      personId: null,
      accountId: null,
      finishedAt: expect.stringMatching(/^\+\d+$/),
    });
  });

  it('another tenant sees none of them: an empty list, whatever the filter, and 404 for each id', async () => {
    const { ids, origin } = await leads();
    const other = await server.newTenant();
    const stranger = await submit({ token: tokenFor(await publicPage(other)), fields: {} });
    expect(stranger.status).toBe(201);
    const list = await other.get(LIST);
    expect(list.body.items.map((item: { formSubmissionId: string }) => item.formSubmissionId)).toEqual([
      stranger.body.formSubmissionId,
    ]);
    expect(list.body.totalCount).toBe(1);
    for (const query of [`pageId=${origin.pageId}`, `audienceId=${origin.audienceId}`]) {
      expect((await other.get(`${LIST}?${query}`)).body).toEqual({
        hasMore: false,
        items: [],
        nextCursor: null,
        totalCount: 0,
      });
    }
    for (const id of ids) {
      const response = await other.get(`/v0/form_submissions/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
    for (const id of ['form_00000000000000000000000000', 'nope']) {
      expect((await other.get(`/v0/form_submissions/${id}`)).status).toBe(404);
    }
  });

  it('a read-only key may read them; no key is 401', async () => {
    const { client, ids } = await leads();
    const { apiKey } = await issueKey(anyTables(server.database), client.tenantId, { readOnly: true });
    const reader = client.as(apiKey);
    expect((await reader.get(LIST)).body.totalCount).toBe(ids.length);
    expect((await reader.get(`/v0/form_submissions/${ids[0]}`)).status).toBe(200);
    const anonymous = server.anonymous();
    expect((await anonymous.get(LIST)).status).toBe(401);
    expect((await anonymous.get(`/v0/form_submissions/${ids[0]}`)).status).toBe(401);
  });
});

describe('retention', () => {
  const DAY = 24 * 60 * 60 * 1000;

  /** Runs the forms.purge task at `now`, configured by `env`. */
  async function purge(now: number, env: Record<string, string> = {}): Promise<void> {
    const task = server.background(env).schedules.find((each) => each.name === 'forms.purge');
    expect(task).toBeDefined();
    await task?.run(server.jobContext(now));
  }

  async function eventTypes(tenantId: string): Promise<string[]> {
    const rows = await anyTables(server.database)
      .selectFrom('events')
      .select('type')
      .where('tenant_id', '=', tenantId)
      .orderBy('id')
      .execute();
    return rows.map((row) => row.type);
  }

  it('purges submissions older than TAILOR_FORM_RETENTION_DAYS (730 by default), and the log entries made from them', async () => {
    const { client, origin, token } = await setup();
    const email = `kept@${domain()}`;
    const submitted = await submit({ token, email, fields: { message: 'Words of a visitor' } });
    expect(submitted.status).toBe(201);
    await settle();
    const person = (await client.get(`/v0/persons?email=${encodeURIComponent(email)}`)).body.items[0];
    const logs = `/v0/persons/${person.personId}/logs`;
    expect((await client.post(logs, { text: 'A note of ours' })).status).toBe(201);
    const sources = async () =>
      (await client.get(logs)).body.items.map((entry: { source: string }) => entry.source);
    expect(await sources()).toEqual(['user', 'visitor']);

    await purge(Date.now() + 729 * DAY);
    expect(await submissionRow(submitted.body.formSubmissionId)).toBeDefined();
    expect(await sources()).toEqual(['user', 'visitor']);

    await purge(Date.now() + 731 * DAY);
    expect(await submissionRow(submitted.body.formSubmissionId)).toBeUndefined();
    expect((await storedCount(origin.tenantId)).submissions).toBe(0);
    expect(await sources()).toEqual(['user']);
    expect((await client.get(`/v0/persons/${person.personId}`)).status).toBe(200);
  });

  it('deletes the form.submitted events that carry the fields with their submission, once delivered', async () => {
    const { origin, token } = await setup();
    const submitted = await submit({ token, email: `short@${domain()}`, fields: { message: 'Short-lived' } });
    expect(submitted.status).toBe(201);
    const week = { TAILOR_FORM_RETENTION_DAYS: '7' };

    // Not delivered yet: the submission goes, its event waits for its delivery.
    await purge(Date.now() + 8 * DAY, week);
    expect(await submissionRow(submitted.body.formSubmissionId)).toBeUndefined();
    expect(await eventTypes(origin.tenantId)).toContain('form.submitted');

    await settle();
    await purge(Date.now() + 6 * DAY, week);
    expect(await eventTypes(origin.tenantId)).toContain('form.submitted');
    await purge(Date.now() + 8 * DAY, week);
    const left = await eventTypes(origin.tenantId);
    expect(left).not.toContain('form.submitted');
    // Events that hold no visitor's words are left to the events' own pruning (30 days).
    expect(left).toContain('page.version.created');
  });

  it('reads TAILOR_FORM_RETENTION_DAYS as a whole number of days, 730 by default', () => {
    expect(loadConfig({}).formRetentionDays).toBe(730);
    expect(loadConfig({ TAILOR_FORM_RETENTION_DAYS: '30' }).formRetentionDays).toBe(30);
    for (const bad of ['0', '-1', '1.5', 'forever', '36501']) {
      expect(() => loadConfig({ TAILOR_FORM_RETENTION_DAYS: bad })).toThrow(/TAILOR_FORM_RETENTION_DAYS/);
    }
  });
});

describe('tenants', () => {
  it("a submission belongs to its token's tenant only", async () => {
    const first = await setup();
    const second = await setup();
    const email = `shared@${domain()}`;
    const response = await submit({ token: first.token, email, fields: {} });
    await settle();

    const row = await submissionRow(response.body.formSubmissionId);
    expect(row?.tenant_id).toBe(first.origin.tenantId);
    expect((await first.client.get(`/v0/persons?email=${email}`)).body.totalCount).toBe(1);
    expect((await second.client.get(`/v0/persons?email=${email}`)).body.totalCount).toBe(0);
    expect(first.hooks.events().map((event) => event.type)).toEqual(['form.submitted', 'form.enriched']);
    expect(second.hooks.received).toHaveLength(0);
    expect((await storedCount(second.origin.tenantId)).submissions).toBe(0);
  });

  it("the same address in two tenants makes two persons, each in their tenant's account", async () => {
    const first = await setup();
    const second = await setup();
    const email = `twice@${domain()}`;
    await submit({ token: first.token, email, fields: {} });
    await submit({ token: second.token, email, fields: {} });
    await settle();
    const one = eventsOf(first.hooks, 'form.enriched')[0]?.data;
    const two = eventsOf(second.hooks, 'form.enriched')[0]?.data;
    expect(one.person.personId).not.toBe(two.person.personId);
    expect(one.account.accountId).not.toBe(two.account.accountId);
    expect((await second.client.get(`/v0/persons/${one.person.personId}`)).status).toBe(404);
  });
});

describe('crashes', () => {
  it('a submission acknowledged before a crash is enriched by another worker once the lease runs out', async () => {
    const { client, token, hooks } = await setup();
    const email = `survivor@${domain()}`;
    const response = await submit({ token, email, fields: { name: 'Sam Survivor' } });
    expect(response.status).toBe(201);
    const now = Date.now();
    const { locks } = server.database;
    const db = anyTables(server.database);
    // A worker takes every due job, enrichment included, and dies without finishing any.
    const leased = await claimJobs(db, locks, 'worker_that_died', 1000, now, 10_000);
    expect(leased.some((job) => job.kind === ENRICH_JOB)).toBe(true);

    const survivor = server.worker();
    await survivor.drain(now);
    expect((await submissionRow(response.body.formSubmissionId))?.enrichment_state).toBe('pending');
    await survivor.drain(now + 11_000);
    await settle(survivor);

    expect((await submissionRow(response.body.formSubmissionId))?.enrichment_state).toBe('enriched');
    expect((await client.get(`/v0/persons?email=${email}`)).body.items[0]?.name).toBe('Sam Survivor');
    expect(
      hooks
        .events()
        .map((event) => event.type)
        .sort(),
    ).toEqual(['form.enriched', 'form.submitted']);
  });

  it('an enrichment that runs again after it finished changes nothing and emits nothing', async () => {
    const { client, token, hooks } = await setup();
    const response = await submit({ token, email: `again@${domain()}`, fields: {} });
    await settle();
    const { formSubmissionId } = response.body;
    const person = (await submissionRow(formSubmissionId))?.person_id;
    const handler = enrichmentJob({
      name: 'should-not-be-asked',
      enrich: () => Promise.reject(new Error('asked about a settled submission')),
    });
    const tenantDb = server.database.forTenant(client.tenantId);
    await handler.run(
      {
        id: 'job_x',
        tenantId: client.tenantId,
        payload: { formSubmissionId },
        attempt: 1,
        maxAttempts: 5,
        db: tenantDb,
      },
      server.jobContext(),
    );
    await settle();
    expect(hooks.events().map((event) => event.type)).toEqual(['form.submitted', 'form.enriched']);
    expect((await client.get(`/v0/persons/${person}/logs`)).body.items).toHaveLength(1);
  });
});
