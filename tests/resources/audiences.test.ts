import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimJobs } from '../../src/jobs/store.ts';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import { Audience, AudienceList, AudienceVersionList } from '../../src/resources/audiences/schema.ts';
import { generationJob } from '../../src/workflows/audience-versions/generation.ts';
import type { Personalizer } from '../../src/workflows/personalization/personalizer.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { png, uploadImage } from '../helpers/images.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';
import { OFF_SITE_PATHS, PAGE_LINKS, SCRIPT_URLS } from '../helpers/urls.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

async function createPage(client = api, overrides: Record<string, unknown> = {}) {
  const response = await client.post('/v0/pages', {
    name: 'Launch',
    pageContext: 'Tailor helps retailers grow. It personalizes every page.',
    brandId: 'b',
    actions: [
      { actionId: 'demo', buttonTitle: 'Book a demo', actionType: 'link', url: 'https://example.com/demo' },
    ],
    actionCardWidgets: [],
    scripts: [],
    ...overrides,
  });
  expect(response.status).toBe(201);
  return response.body;
}

async function createAudience(pageId: string, body: Record<string, unknown> = {}, client = api) {
  const response = await client.post(`/v0/pages/${pageId}/audiences`, body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expectSchema(Audience, response.body);
  return response.body;
}

const audienceUrl = (audience: { pageId: string; audienceId: string }) =>
  `/v0/pages/${audience.pageId}/audiences/${audience.audienceId}`;

async function generate() {
  await server.worker().drain();
}

describe('POST /v0/pages/{id}/audiences', () => {
  it('creates version 0 published and version 1 queued', async () => {
    const page = await createPage();
    const response = await api.post(`/v0/pages/${page.pageId}/audiences`, {});
    expect(response.status).toBe(201);
    expectSchema(Audience, response.body);
    const audience = response.body;
    expect(response.headers.get('location')).toBe(audienceUrl(audience));
    expect(audience).toMatchObject({
      pageId: page.pageId,
      status: 'queued',
      computedName: 'Audience 1',
      customName: null,
      effectiveName: 'Audience 1',
      isNewPageAgent: false,
      personId: null,
      personRouteKey: null,
      actionFormIdOverride: null,
      actionFormInstructionsOverride: null,
      actionUrlOverride: null,
      supplementaryContext: null,
      archivedAt: null,
    });
    expect(audience.audienceId).toMatch(/^audience_[a-z0-9]{26}$/);
    expect(audience.publishedVersion).toMatchObject({ versionNumber: 0, queueDurationMs: 0 });
    expect(audience.publishedVersion.publishedAt).toMatch(/^\+\d+$/);
    expect(audience.publishedVersion).not.toHaveProperty('queuedAt');
    expect(audience.latestVersion).toMatchObject({
      versionNumber: 1,
      supplementaryContext: '',
      queueDurationMs: 0,
    });
    expect(audience.latestVersion.queuedAt).toMatch(/^\+\d+$/);
    expect(audience.latestVersion).not.toHaveProperty('publishedAt');
    expect(audience.latestVersion.versionId).toMatch(/^version_[a-z0-9]{26}$/);
    expect((await api.get(`/v0/pages/${page.pageId}`)).body.audiencesCount).toBe(1);
  });

  it('names the audience after its person and account', async () => {
    const page = await createPage();
    const person = (await api.post('/v0/persons', { name: 'Jane Doe', email: 'jane@globex-names.example' }))
      .body;
    const byDomain = await createAudience(page.pageId, { personId: person.personId });
    expect(byDomain).toMatchObject({
      computedName: 'Jane Doe at globex-names.example',
      effectiveName: 'Jane Doe at globex-names.example',
      personId: person.personId,
      personRouteKey: person.slug,
    });
    const account = (await api.get('/v0/accounts/search?query=globex-names')).body.items[0];
    await api.patch(`/v0/accounts/${account.accountId}`, { name: 'Globex' });
    expect((await api.get(audienceUrl(byDomain))).body.computedName).toBe('Jane Doe at Globex');

    const loner = (await api.post('/v0/persons', { name: 'Solo Person' })).body;
    const named = await createAudience(page.pageId, { personId: loner.personId, customName: 'VIP' });
    expect(named).toMatchObject({ computedName: 'Solo Person', customName: 'VIP', effectiveName: 'VIP' });
    expect((await createAudience(page.pageId)).computedName).toBe('Audience 3');
  });

  it('overlays the page metadata with the override, field by field', async () => {
    const page = await createPage(api, {
      metadata: { title: 'Page title', description: 'Page description' },
    });
    const audience = await createAudience(page.pageId, {
      metadataOverride: { description: 'For you', ogImageUrl: 'https://cdn.example/og.png' },
    });
    expect(audience.metadataOverride).toEqual({
      description: 'For you',
      ogImageUrl: 'https://cdn.example/og.png',
    });
    expect(audience.effectiveMetadata).toEqual({
      title: 'Page title',
      description: 'For you',
      ogImageUrl: 'https://cdn.example/og.png',
    });
  });

  it('keeps every optional field', async () => {
    const page = await createPage();
    const audience = await createAudience(page.pageId, {
      customName: 'Named',
      supplementaryContext: 'Met at the fair',
      isNewPageAgent: true,
      actionFormIdOverride: 'form-7',
      actionFormInstructionsOverride: 'Ask about pricing',
      actionUrlOverride: 'https://example.com/special',
    });
    expect(audience).toMatchObject({
      supplementaryContext: 'Met at the fair',
      isNewPageAgent: true,
      actionFormIdOverride: 'form-7',
      actionFormInstructionsOverride: 'Ask about pricing',
      actionUrlOverride: 'https://example.com/special',
    });
    expect(audience.latestVersion).toMatchObject({
      supplementaryContext: 'Met at the fair',
      isNewPageAgent: true,
    });
  });

  it('refuses archived and deleted pages (409) and unknown pages (404)', async () => {
    const archived = await createPage();
    await api.post(`/v0/pages/${archived.pageId}/archive`);
    const deleted = await createPage();
    await api.delete(`/v0/pages/${deleted.pageId}`);
    for (const page of [archived, deleted]) {
      const response = await api.post(`/v0/pages/${page.pageId}/audiences`, {});
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('invalid_state');
    }
    expect((await api.post('/v0/pages/page_00000000000000000000000000/audiences', {})).status).toBe(404);
    const foreign = await createPage(await server.newTenant());
    expect((await api.post(`/v0/pages/${foreign.pageId}/audiences`, {})).status).toBe(404);
  });

  it.each([
    ['an unknown person', { personId: 'person_00000000000000000000000000' }, '/body/personId'],
    ['an empty customName', { customName: '' }, '/body/customName'],
    ['a non-boolean autoPublish', { autoPublish: 'yes' }, '/body/autoPublish'],
    ['a javascript: action URL', { actionUrlOverride: 'javascript:alert(1)' }, '/body/actionUrlOverride'],
    ['an unknown metadata field', { metadataOverride: { color: 'red' } }, '/body/metadataOverride/color'],
    ['an unknown field', { status: 'published' }, '/body/status'],
  ])('rejects %s with 400 and creates nothing', async (_label, body, path) => {
    const page = await createPage();
    const response = await api.post(`/v0/pages/${page.pageId}/audiences`, body);
    expect(response.status).toBe(400);
    expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect((await api.get(`/v0/pages/${page.pageId}/audiences`)).body.totalCount).toBe(0);
  });

  it('refuses a person of another tenant', async () => {
    const page = await createPage();
    const other = await server.newTenant();
    const person = (await other.post('/v0/persons', { name: 'Theirs' })).body;
    const response = await api.post(`/v0/pages/${page.pageId}/audiences`, { personId: person.personId });
    expect(response.status).toBe(400);
  });

  it('makes an audience for a whole account, named after it', async () => {
    const page = await createPage();
    const account = (
      await api.post('/v0/accounts', { domain: `whole-${Date.now()}.example`, name: 'Whole Co' })
    ).body;
    const audience = await createAudience(page.pageId, { accountId: account.accountId });
    expect(audience).toMatchObject({
      accountId: account.accountId,
      personId: null,
      personRouteKey: null,
      computedName: 'Whole Co',
      effectiveName: 'Whole Co',
    });
    expect((await api.get(audienceUrl(audience))).body.accountId).toBe(account.accountId);
    const person = await createAudience(page.pageId, {});
    expect(person.accountId).toBeNull();
  });

  it.each([
    ['an unknown person', async () => ({ personId: 'person_00000000000000000000000000' }), '/body/personId'],
    ['an empty personId', async () => ({ personId: '' }), '/body/personId'],
    [
      'an unknown account',
      async () => ({ accountId: 'account_00000000000000000000000000' }),
      '/body/accountId',
    ],
    [
      "another tenant's account",
      async () => ({
        accountId: (await (await server.newTenant()).post('/v0/accounts', { domain: 'theirs.example' })).body
          .accountId,
      }),
      '/body/accountId',
    ],
    [
      'a person and an account together',
      async () => ({
        personId: (await api.post('/v0/persons', { name: 'Both' })).body.personId,
        accountId: (await api.post('/v0/accounts', { domain: `both-${Date.now()}.example` })).body.accountId,
      }),
      '/body/accountId',
    ],
  ])('refuses %s with 400 at the field and makes nothing', async (_label, body, path) => {
    const page = await createPage();
    const response = await api.post(`/v0/pages/${page.pageId}/audiences`, await body());
    expect(response.status).toBe(400);
    expect(response.body.errors[0].path).toBe(path);
    expect((await api.get(`/v0/pages/${page.pageId}/audiences`)).body.totalCount).toBe(0);
  });
});

describe('URLs an audience overrides (issue 21 finding 11)', () => {
  const fields: [string, (url: string) => Record<string, unknown>, string][] = [
    ['actionUrlOverride', (url) => ({ actionUrlOverride: url }), '/body/actionUrlOverride'],
    [
      'metadataOverride.ogUrl',
      (url) => ({ metadataOverride: { ogUrl: url } }),
      '/body/metadataOverride/ogUrl',
    ],
  ];

  it.each(fields)(
    'refuses script URLs and protocol-relative "paths" in %s on create and on update, storing nothing',
    async (_label, field, path) => {
      const page = await createPage();
      const kept = await createAudience(page.pageId);
      for (const url of [...SCRIPT_URLS, ...OFF_SITE_PATHS]) {
        const created = await api.post(`/v0/pages/${page.pageId}/audiences`, field(url));
        expect(created.status, JSON.stringify(url)).toBe(400);
        expect(created.body.errors.map((e: { path: string }) => e.path)).toContain(path);
        const updated = await api.patch(audienceUrl(kept), field(url));
        expect(updated.status, JSON.stringify(url)).toBe(400);
        expect(updated.body.errors.map((e: { path: string }) => e.path)).toContain(path);
      }
      expect((await api.get(`/v0/pages/${page.pageId}/audiences`)).body.totalCount).toBe(1);
      expect((await api.get(audienceUrl(kept))).body).toEqual(kept);
    },
  );

  it('accepts http(s), mailto:, tel:, paths and fragments as actionUrlOverride', async () => {
    const page = await createPage();
    for (const url of PAGE_LINKS) {
      expect((await createAudience(page.pageId, { actionUrlOverride: url })).actionUrlOverride).toBe(url);
    }
  });
});

describe('metadata override images', () => {
  const fields = ['ogImageFileId', 'twitterImageFileId'] as const;

  it.each(fields)('refuses an unknown or foreign %s with 400 on create and PATCH', async (field) => {
    const page = await createPage();
    const foreignFile = await uploadImage(await server.newTenant());
    for (const fileId of ['file_00000000000000000000000000', foreignFile]) {
      const created = await api.post(`/v0/pages/${page.pageId}/audiences`, {
        metadataOverride: { [field]: fileId },
      });
      expect(created.status).toBe(400);
      expect(created.body.errors[0].path).toBe(`/body/metadataOverride/${field}`);
    }
    expect((await api.get(`/v0/pages/${page.pageId}/audiences`)).body.totalCount).toBe(0);

    const audience = await createAudience(page.pageId, { metadataOverride: { title: 'Kept' } });
    const patched = await api.patch(audienceUrl(audience), { metadataOverride: { [field]: foreignFile } });
    expect(patched.status).toBe(400);
    expect(patched.body.errors[0].path).toBe(`/body/metadataOverride/${field}`);
    expect((await api.get(audienceUrl(audience))).body.metadataOverride).toEqual({ title: 'Kept' });
  });

  it('accepts image files of the tenant, on create and PATCH', async () => {
    const page = await createPage();
    const [og, twitter] = [await uploadImage(api), await uploadImage(api, png(0, 0, 255))];
    const audience = await createAudience(page.pageId, { metadataOverride: { ogImageFileId: og } });
    expect(audience.metadataOverride).toEqual({ ogImageFileId: og });
    const patched = await api.patch(audienceUrl(audience), {
      metadataOverride: { ogImageFileId: og, twitterImageFileId: twitter },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.metadataOverride).toEqual({ ogImageFileId: og, twitterImageFileId: twitter });
  });
});

describe('generation and the version life', () => {
  it('queued → processing → draft with generated content', async () => {
    const page = await createPage();
    const person = (await api.post('/v0/persons', { name: 'Ada Lovelace', email: 'ada@engines.example' }))
      .body;
    await api.post('/v0/topics', { title: 'Customers' }).then((topic) =>
      api.post(`/v0/topics/${topic.body.topicId}/entries`, {
        content: { type: 'text', content: 'Over 500 retailers use Tailor.' },
      }),
    );
    const audience = await createAudience(page.pageId, {
      personId: person.personId,
      supplementaryContext: 'Loves engines',
    });
    await generate();
    const after = (await api.get(audienceUrl(audience))).body;
    expectSchema(Audience, after);
    expect(after.status).toBe('draft');
    expect(after.latestVersion.becameDraftAt).toMatch(/^\+\d+$/);
    expect(after.latestVersion.queueDurationMs).toBeGreaterThanOrEqual(0);
    expect(after.publishedVersion.versionNumber).toBe(0);

    const versions = await api.get(`${audienceUrl(audience)}/versions`);
    expectSchema(AudienceVersionList, versions.body);
    const [latest, baseline] = versions.body.items;
    expect(latest).toMatchObject({ versionNumber: 1, state: 'draft' });
    // The company is named as a reader would (engines.example is "Engines"); the context stays private.
    expect(latest.content.headline).toMatch(/Ada|Engines/);
    expect(latest.content.headline).not.toContain('engines.example');
    expect(JSON.stringify(latest.content)).not.toContain('Loves engines');
    expect(JSON.stringify(latest.content.sections)).toContain('Over 500 retailers');
    expect(latest).toMatchObject({ generatedBy: 'built-in', generationNote: null });
    expect(latest.content.actions[0]).toMatchObject({ actionId: 'demo', buttonTitle: 'Book a demo' });
    expect(baseline).toMatchObject({ versionNumber: 0, state: 'published' });
    expect(baseline.content.headline).toBe('Launch');
  });

  it('publish: 409 while queued, then draft → published, the old version obsolete, repeat unchanged', async () => {
    const page = await createPage();
    const audience = await createAudience(page.pageId);
    const early = await api.post(`${audienceUrl(audience)}/publish`);
    expect(early.status).toBe(409);
    expect(early.body.detail).toContain('queued');
    await generate();
    const published = await api.post(`${audienceUrl(audience)}/publish`, {});
    expect(published.status).toBe(200);
    expect(published.body.status).toBe('published');
    expect(published.body.publishedVersion.versionNumber).toBe(1);
    expect(published.body.publishedVersion.publishedAt).toMatch(/^\+\d+$/);
    const again = await api.post(`${audienceUrl(audience)}/publish`);
    expect(again.body).toEqual(published.body);
    const baseline = (await api.get(`${audienceUrl(audience)}/versions`)).body.items[1];
    expect(baseline.obsoleteAt).toMatch(/^\+\d+$/);
  });

  it('autoPublish publishes each generated version', async () => {
    const page = await createPage();
    const audience = await createAudience(page.pageId, { autoPublish: true });
    await generate();
    const after = (await api.get(audienceUrl(audience))).body;
    expect(after.status).toBe('published');
    expect(after.publishedVersion.versionId).toBe(after.latestVersion.versionId);
  });

  it('cancel: queued → cancelled, repeat unchanged; a draft cannot be cancelled', async () => {
    const page = await createPage();
    const audience = await createAudience(page.pageId);
    const cancelled = await api.post(`${audienceUrl(audience)}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(cancelled.body.latestVersion.cancelledAt).toMatch(/^\+\d+$/);
    expect((await api.post(`${audienceUrl(audience)}/cancel`)).body).toEqual(cancelled.body);
    await generate();
    expect((await api.get(audienceUrl(audience))).body.status).toBe('cancelled');

    const other = await createAudience(page.pageId);
    await generate();
    const refused = await api.post(`${audienceUrl(other)}/cancel`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('invalid_state');
  });

  it('a new version cancels older unfinished ones and snapshots the context', async () => {
    const page = await createPage();
    const audience = await createAudience(page.pageId, { supplementaryContext: 'first' });
    await api.patch(audienceUrl(audience), { supplementaryContext: 'second' });
    const queued = await api.post(`${audienceUrl(audience)}/versions`, {});
    expect(queued.status).toBe(201);
    expectSchema(Audience, queued.body);
    expect(queued.body.latestVersion).toMatchObject({ versionNumber: 2, supplementaryContext: 'second' });
    expect(queued.body.status).toBe('queued');
    const versions = (await api.get(`${audienceUrl(audience)}/versions`)).body.items;
    expect(versions.map((v: { versionNumber: number; state: string }) => [v.versionNumber, v.state])).toEqual(
      [
        [2, 'queued'],
        [1, 'cancelled'],
        [0, 'published'],
      ],
    );
    await generate();
    expect((await api.get(audienceUrl(audience))).body.status).toBe('draft');
  });

  it('a failing personalizer leaves the version pending, then cancels it after 5 attempts', async () => {
    const page = await createPage();
    const audience = await createAudience(page.pageId);
    let calls = 0;
    const failing: Personalizer = {
      name: 'failing',
      async personalize() {
        calls++;
        throw new Error('model unavailable');
      },
    };
    const worker = server.worker({ handlers: server.handlersWith(generationJob(failing)) });
    await worker.drain();
    expect((await api.get(audienceUrl(audience))).body.status).toBe('pending');
    let now = Date.now();
    for (let attempt = 2; attempt <= 5; attempt++) {
      now += 3_600_000;
      await worker.drain(now);
    }
    expect(calls).toBe(5);
    const after = (await api.get(audienceUrl(audience))).body;
    expect(after.status).toBe('cancelled');
    expect(after.latestVersion.cancelledAt).toMatch(/^\+\d+$/);
  });

  it('a worker that dies mid-generation does not leave the version stuck in processing', async () => {
    const page = await createPage();
    const audience = await createAudience(page.pageId);
    const now = Date.now();
    const { locks } = server.database;
    const db = anyTables(server.database);
    const leased = await claimJobs(db, locks, 'worker_that_died', 1000, now, 10_000);
    expect(leased.length).toBeGreaterThan(0);
    await db
      .updateTable('audience_versions')
      .set({ state: 'processing', processing_started_at: now })
      .where('id', '=', audience.latestVersion.versionId)
      .execute();
    expect((await api.get(audienceUrl(audience))).body.status).toBe('processing');
    await server.worker().drain(now + 11_000);
    expect((await api.get(audienceUrl(audience))).body.status).toBe('draft');
  });

  it('generates with an OpenAI-compatible chat-completions endpoint when one is configured', async () => {
    const requests: { model: string; messages: { role: string; content: string }[] }[] = [];
    let answer = 200;
    const fake = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        requests.push(JSON.parse(body));
        if (answer !== 200) return response.writeHead(answer).end();
        const content = {
          headline: 'Hello from the model',
          subheadline: 'Sub',
          sections: [{ heading: 'H', body: 'B' }],
        };
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            choices: [{ message: { role: 'assistant', content: JSON.stringify(content) } }],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const { port } = fake.address() as AddressInfo;
    const env = { TAILOR_LLM_BASE_URL: `http://127.0.0.1:${port}/v1`, TAILOR_LLM_MODEL: 'test-model' };
    try {
      const page = await createPage();
      const audience = await createAudience(page.pageId);
      await server.worker({ env }).drain();
      const [latest] = (await api.get(`${audienceUrl(audience)}/versions`)).body.items;
      expect(latest.state).toBe('draft');
      expect(latest.content.headline).toBe('Hello from the model');
      expect(latest).toMatchObject({ generatedBy: 'test-model', generationNote: null });
      expect(requests[0]?.model).toBe('test-model');
      expect(requests[0]?.messages.map((m) => m.role)).toEqual(['system', 'user']);
      expect(requests[0]?.messages[1]?.content).toContain('Launch');

      answer = 500;
      const failing = await createAudience(page.pageId);
      await server.worker({ env }).drain();
      expect((await api.get(audienceUrl(failing))).body.status).toBe('pending');
    } finally {
      fake.close();
    }
  });
});

describe('PATCH, archive and list', () => {
  it('PATCH changes the given fields, null clears, no new version', async () => {
    const page = await createPage();
    const audience = await createAudience(page.pageId, { customName: 'Old', actionUrlOverride: '/x' });
    const response = await api.patch(audienceUrl(audience), {
      customName: 'New',
      actionUrlOverride: null,
      metadataOverride: { title: 'T' },
      isNewPageAgent: true,
    });
    expect(response.status).toBe(200);
    expectSchema(Audience, response.body);
    expect(response.body).toMatchObject({
      customName: 'New',
      effectiveName: 'New',
      actionUrlOverride: null,
      isNewPageAgent: true,
    });
    expect(response.body.metadataOverride).toEqual({ title: 'T' });
    expect(response.body.latestVersion).toEqual(audience.latestVersion);
    const cleared = await api.patch(audienceUrl(audience), { customName: null, metadataOverride: null });
    expect(cleared.body).toMatchObject({ customName: null, effectiveName: 'Audience 1' });
    expect(cleared.body).not.toHaveProperty('metadataOverride');
    expect((await api.patch(audienceUrl(audience), { isNewPageAgent: null })).status).toBe(400);
    expect((await api.patch(audienceUrl(audience), { personId: null })).status).toBe(400);
  });

  it('archive: archived with timestamps on the audience and its versions; repeat unchanged; then 409 on changes', async () => {
    const page = await createPage();
    const audience = await createAudience(page.pageId);
    const archived = await api.delete(audienceUrl(audience));
    expect(archived.status).toBe(200);
    expectSchema(Audience, archived.body);
    expect(archived.body.status).toBe('archived');
    expect(archived.body.archivedAt).toMatch(/^\+\d+$/);
    expect(archived.body.latestVersion.archivedAt).toBe(archived.body.archivedAt);
    expect(archived.body.latestVersion.cancelledAt).toBe(archived.body.archivedAt);
    expect(archived.body.publishedVersion.archivedAt).toBe(archived.body.archivedAt);
    expect((await api.delete(audienceUrl(audience))).body).toEqual(archived.body);
    await generate();
    expect((await api.get(audienceUrl(audience))).body).toEqual(archived.body);
    for (const [method, path] of [
      ['PATCH', ''],
      ['POST', '/versions'],
      ['POST', '/publish'],
      ['POST', '/cancel'],
    ] as const) {
      const response = await api.request(
        method,
        `${audienceUrl(audience)}${path}`,
        method === 'PATCH' ? { body: { customName: 'x' } } : {},
      );
      expect(response.status).toBe(409);
    }
    expect((await api.get(`/v0/pages/${page.pageId}`)).body.audiencesCount).toBe(0);
  });

  it('lists a page’s audiences newest first, archived included, with cursors', async () => {
    const page = await createPage();
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await createAudience(page.pageId)).audienceId);
    await api.delete(`/v0/pages/${page.pageId}/audiences/${ids[0]}`);
    const first = await api.get(`/v0/pages/${page.pageId}/audiences?limit=3`);
    expect(first.status).toBe(200);
    expectSchema(AudienceList, first.body);
    expect(first.body).toMatchObject({ hasMore: true, totalCount: 5 });
    const second = await api.get(
      `/v0/pages/${page.pageId}/audiences?limit=3&cursor=${first.body.nextCursor}`,
    );
    const seen = [...first.body.items, ...second.body.items].map((a: { audienceId: string }) => a.audienceId);
    expect(seen).toEqual([...ids].reverse());
    expect(second.body.items.at(-1).status).toBe('archived');
    const otherPage = await createPage();
    const foreignCursor = await api.get(
      `/v0/pages/${otherPage.pageId}/audiences?cursor=${first.body.nextCursor}`,
    );
    expect(foreignCursor.status).toBe(400);
  });

  it('is 404 everywhere for another tenant, and for an audience of another page', async () => {
    const page = await createPage();
    const audience = await createAudience(page.pageId);
    const other = await server.newTenant();
    const base = audienceUrl(audience);
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/versions'],
      ['GET', '/versions'],
      ['POST', '/publish'],
      ['POST', '/cancel'],
    ] as const) {
      const response = await other.request(method, `${base}${path}`, method === 'PATCH' ? { body: {} } : {});
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect((await other.get(`/v0/pages/${page.pageId}/audiences`)).status).toBe(404);
    const otherPage = await createPage();
    expect((await api.get(`/v0/pages/${otherPage.pageId}/audiences/${audience.audienceId}`)).status).toBe(
      404,
    );
    expect((await api.get(base)).body.status).toBe('queued');
  });

  it('a deleted person leaves the audience nameless, not broken', async () => {
    const page = await createPage();
    const person = (await api.post('/v0/persons', { name: 'Temporary' })).body;
    const audience = await createAudience(page.pageId, { personId: person.personId });
    await api.delete(`/v0/persons/${person.personId}`);
    const after = (await api.get(audienceUrl(audience))).body;
    expect(after).toMatchObject({ personId: null, personRouteKey: null, computedName: 'Audience 1' });
  });
});

describe('GET /v0/audiences (across pages)', () => {
  /** A tenant of its own with audiences on two pages: for Ada, for her account, for Ada again, for no one. */
  async function spread() {
    const client = await server.newTenant();
    const ada = (await client.post('/v0/persons', { name: 'Ada', email: 'ada@analytical.example' })).body;
    const account = (await client.post('/v0/accounts', { domain: 'babbage.example' })).body;
    const [first, second] = [await createPage(client), await createPage(client, { name: 'Spring' })];
    const made = [
      await createAudience(first.pageId, { personId: ada.personId }, client),
      await createAudience(second.pageId, { accountId: account.accountId }, client),
      await createAudience(second.pageId, { personId: ada.personId }, client),
      await createAudience(first.pageId, {}, client),
    ];
    return { client, ada, account, made, ids: made.map((audience) => audience.audienceId) };
  }

  it("lists every page's audiences newest first, each with its page, as the page's list shows them", async () => {
    const { client, made, ids } = await spread();
    const all = await client.get('/v0/audiences');
    expect(all.status).toBe(200);
    expectSchema(AudienceList, all.body);
    expect(all.body.totalCount).toBe(4);
    expect(all.body.items.map((audience: { audienceId: string }) => audience.audienceId)).toEqual(
      [...ids].reverse(),
    );
    const [newest] = all.body.items;
    const onItsPage = (await client.get(`/v0/pages/${newest.pageId}/audiences`)).body.items.find(
      (audience: { audienceId: string }) => audience.audienceId === newest.audienceId,
    );
    expect(newest).toEqual(onItsPage);
    expect(new Set(all.body.items.map((audience: { pageId: string }) => audience.pageId))).toEqual(
      new Set(made.map((audience) => audience.pageId)),
    );
  });

  it("keeps a person's or an account's audiences, pages through them, and refuses malformed filters", async () => {
    const { client, ada, account, ids } = await spread();
    const hers = await client.get(`/v0/audiences?personId=${ada.personId}&limit=1`);
    expect(hers.body).toMatchObject({ totalCount: 2, hasMore: true });
    expect(hers.body.items[0].audienceId).toBe(ids[2]);
    const next = await client.get(
      `/v0/audiences?personId=${ada.personId}&limit=1&cursor=${hers.body.nextCursor}`,
    );
    expect(next.body.items.map((audience: { audienceId: string }) => audience.audienceId)).toEqual([ids[0]]);
    expect(next.body.hasMore).toBe(false);
    // A cursor belongs to its filters.
    expect((await client.get(`/v0/audiences?cursor=${hers.body.nextCursor}`)).status).toBe(400);

    const company = await client.get(`/v0/audiences?accountId=${account.accountId}`);
    expect(company.body.items.map((audience: { audienceId: string }) => audience.audienceId)).toEqual([
      ids[1],
    ]);
    const both = await client.get(`/v0/audiences?accountId=${account.accountId}&personId=${ada.personId}`);
    expect(both.body.totalCount).toBe(0);
    expect((await client.get('/v0/audiences?personId=person_00000000000000000000000000')).body.items).toEqual(
      [],
    );
    for (const query of ['personId=ada', 'accountId=person_00000000000000000000000000', 'limit=0']) {
      const refused = await client.get(`/v0/audiences?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.code).toBe('validation_failed');
    }
  });

  it('shows another tenant nothing of ours, and a read-only key may read', async () => {
    const { client, ada } = await spread();
    const other = await server.newTenant();
    expect((await other.get('/v0/audiences')).body.totalCount).toBe(0);
    expect((await other.get(`/v0/audiences?personId=${ada.personId}`)).body.totalCount).toBe(0);
    const { apiKey } = await issueKey(anyTables(server.database), client.tenantId, { readOnly: true });
    expect((await client.as(apiKey).get('/v0/audiences')).body.totalCount).toBe(4);
    expect((await server.anonymous().get('/v0/audiences')).status).toBe(401);
  });
});
