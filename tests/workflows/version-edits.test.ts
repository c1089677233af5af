import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import { AudienceVersionList, AudienceVersionWithContent } from '../../src/resources/audiences/schema.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { publishLinkedPage } from '../helpers/pages.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: Client;

const CONTEXT = 'Maya worries that her board will cut the budget in June.';
const NOTE = 'Maya said the spring launch slipped twice because of agency delays.';
const OTHER_BRAND = 'Globex Outfitters';

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  // Another brand of the tenant, whose name no page of acme may carry.
  const brand = await api.request('PUT', '/v0/brands/globex', { body: { name: OTHER_BRAND } });
  expect(brand.status).toBe(201);
});
afterAll(() => server.close());

let made = 0;

/** A published page (SAMPLE_PAGE, brand acme) served at a link, its audience for a person, and version 1 generated: a draft. */
async function draftFor(client = api) {
  made += 1;
  const person = (
    await client.post('/v0/persons', { name: 'Maya Chen', email: `maya${made}@northwind.example` })
  ).body;
  expect((await client.post(`/v0/persons/${person.personId}/logs`, { text: NOTE })).status).toBe(201);
  const linked = await publishLinkedPage(server, client, {
    personalize: false,
    audience: { personId: person.personId, supplementaryContext: CONTEXT },
    path: `/edits-${made}`,
  });
  const base = `/v0/pages/${linked.pageId}/audiences/${linked.audienceId}`;
  const audience = (await client.get(base)).body;
  await server.worker().drain();
  const versionId: string = audience.latestVersion.versionId;
  return { ...linked, pageUrl: linked.url, base, versionId, url: `${base}/versions/${versionId}` };
}

async function version(url: string, client = api) {
  const response = await client.get(url);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expectSchema(AudienceVersionWithContent, response.body);
  return response.body;
}

const SECTIONS = [
  { heading: 'Pages that stay on brand', body: 'Every page follows your **brand profile**.' },
  { heading: 'See it live', body: 'A short tour: [book a demo](https://example.com/demo).' },
];

describe('GET …/versions/{version_id}', () => {
  it('answers a queued version without content, then the generated draft, as the list shows it', async () => {
    const { base, pageId } = await publishLinkedPage(server, api, {
      personalize: false,
      path: '/edits-get',
    }).then((linked) => ({ ...linked, base: `/v0/pages/${linked.pageId}/audiences/${linked.audienceId}` }));
    const audience = (await api.get(base)).body;
    const url = `${base}/versions/${audience.latestVersion.versionId}`;

    const queued = await version(url);
    expect(queued).toMatchObject({
      versionId: audience.latestVersion.versionId,
      versionNumber: 1,
      audienceId: audience.audienceId,
      state: 'queued',
      content: null,
      generatedBy: null,
      generationNote: null,
      editedAt: null,
    });

    await server.worker().drain();
    const draft = await version(url);
    expect(draft).toMatchObject({
      state: 'draft',
      generatedBy: 'built-in',
      generationNote: null,
      editedAt: null,
    });
    expect(draft.content.headline).toEqual(expect.any(String));
    expect(draft.content.sections.length).toBeGreaterThan(0);
    expect(draft.content.actions.map((action: { actionId: string }) => action.actionId)).toEqual([
      'demo',
      'contact',
    ]);
    const list = (await api.get(`${base}/versions`)).body;
    expectSchema(AudienceVersionList, list);
    expect(list.items[0]).toEqual(draft);

    const baseline = await version(`${base}/versions/${audience.publishedVersion.versionId}`);
    expect(baseline).toMatchObject({
      versionNumber: 0,
      state: 'published',
      generatedBy: null,
      editedAt: null,
    });
    expect(pageId).toBe(audience.pageId);
  });
});

describe('PATCH …/versions/{version_id}', () => {
  it('edits a draft: editedAt set, shown in the preview and, once published, on the page', async () => {
    const draft = await draftFor();
    const before = await version(draft.url);
    const started = Date.now();

    const response = await api.patch(draft.url, {
      content: { headline: 'Maya, spring pages without the agency wait', sections: SECTIONS },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expectSchema(AudienceVersionWithContent, response.body);
    const edited = response.body;
    expect(Number(edited.editedAt.slice(1))).toBeGreaterThanOrEqual(started);
    expect(edited).toMatchObject({
      state: 'draft',
      generatedBy: 'built-in',
      becameDraftAt: before.becameDraftAt,
      content: {
        headline: 'Maya, spring pages without the agency wait',
        subheadline: before.content.subheadline,
        sections: SECTIONS,
        actions: before.content.actions,
      },
    });
    // The page's title follows the headline, as a generated one does.
    expect(edited.content.metadata.title).toBe('Maya, spring pages without the agency wait');
    expect(await version(draft.url)).toEqual(edited);
    expect((await api.get(`${draft.base}/versions`)).body.items[0]).toEqual(edited);

    // A later edit of one part keeps the others.
    const second = await api.patch(draft.url, { content: { subheadline: 'Launch in days, not weeks.' } });
    expect(second.status).toBe(200);
    expect(second.body.content).toMatchObject({
      headline: 'Maya, spring pages without the agency wait',
      subheadline: 'Launch in days, not weeks.',
      sections: SECTIONS,
    });
    expect(Number(second.body.editedAt.slice(1))).toBeGreaterThanOrEqual(Number(edited.editedAt.slice(1)));

    const preview = await api.get(`${draft.url}/preview`);
    expect(preview.status).toBe(200);
    expect(preview.body).toContain('<h1>Maya, spring pages without the agency wait</h1>');
    expect(preview.body).toContain('Launch in days, not weeks.');
    expect(preview.body).toContain('<strong>brand profile</strong>');
    expect(preview.body).toContain('<a href="https://example.com/demo">book a demo</a>');
    expect(preview.body).toContain('<title>Maya, spring pages without the agency wait</title>');

    // Visitors see version 0 until the edited draft is published, then the edit.
    const visitor = server.visitor();
    const beforePublish = await visitor.get(draft.pageUrl);
    expect(beforePublish.status).toBe(200);
    expect(beforePublish.body).not.toContain('agency wait');
    expect((await api.post(`${draft.base}/publish`)).status).toBe(200);
    const page = await visitor.get(draft.pageUrl);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<h1>Maya, spring pages without the agency wait</h1>');
    expect(page.body).toContain('<strong>brand profile</strong>');
    expect(page.body).toContain('Launch in days, not weeks.');
    expect(await version(draft.url)).toMatchObject({ state: 'published', editedAt: second.body.editedAt });
  });

  it('accepts an edit with no part and changes nothing', async () => {
    const draft = await draftFor();
    const before = await version(draft.url);
    const response = await api.patch(draft.url, { content: {} });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(before);
    expect(await version(draft.url)).toEqual(before);
  });

  it('keeps every one of several edits of one draft sent at once', async () => {
    const draft = await draftFor();
    for (const round of [1, 2, 3]) {
      const content = {
        headline: `Spring pages for Northwind, take ${round}`,
        subheadline: `Launch in ${round} days.`,
        sections: [{ heading: `Step ${round}`, body: 'Book a tour.' }],
      };
      const answers = await Promise.all(
        Object.entries(content).map(([part, value]) => api.patch(draft.url, { content: { [part]: value } })),
      );
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
      expect((await version(draft.url)).content).toMatchObject(content);
    }
  });
});

/** Sends `body` to the draft and expects a 400 with exactly these field errors, and the version unchanged. */
async function expectRefused(
  draft: { url: string },
  body: unknown,
  errors: { path: string; message: string | RegExp }[],
) {
  const before = await version(draft.url);
  const response = await api.patch(draft.url, body);
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  expect(response.body.code).toBe('validation_failed');
  expect(response.body.errors).toHaveLength(errors.length);
  for (const [index, { path, message }] of errors.entries()) {
    expect(response.body.errors[index].path).toBe(path);
    expect(response.body.errors[index].message).toMatch(message);
  }
  expect(await version(draft.url)).toEqual(before);
  expect(before.editedAt).toBeNull();
}

describe('PATCH …/versions/{version_id}: what the check refuses (400, nothing changed)', () => {
  let draft: Awaited<ReturnType<typeof draftFor>>;
  beforeAll(async () => {
    draft = await draftFor();
  });

  it('markup a reader would see', async () => {
    await expectRefused(draft, { content: { headline: 'Spring pages, **fast**' } }, [
      { path: '/body/content/headline', message: 'shows markup' },
    ]);
    await expectRefused(
      draft,
      { content: { sections: [SECTIONS[0], { heading: '## Next steps', body: 'Book a tour.' }] } },
      [{ path: '/body/content/sections/1/heading', message: 'shows markup' }],
    );
  });

  it("another brand's name", async () => {
    await expectRefused(
      draft,
      { content: { sections: [SECTIONS[0], { heading: `Better than ${OTHER_BRAND}`, body: 'It is.' }] } },
      [{ path: '/body/content/sections/1/heading', message: 'names another brand (globex outfitters)' }],
    );
  });

  it("a quotation of the audience's private context or of the person's log", async () => {
    await expectRefused(draft, { content: { subheadline: CONTEXT } }, [
      { path: '/body/content/subheadline', message: "quotes the audience's private context" },
    ]);
    await expectRefused(
      draft,
      { content: { sections: [{ heading: 'Why now', body: `We heard you. ${NOTE.toUpperCase()}` }] } },
      [{ path: '/body/content/sections/0/body', message: "quotes the person's log" }],
    );
  });

  it("a link that is not one of the page's actions, written or bare", async () => {
    await expectRefused(
      draft,
      {
        content: {
          sections: [
            SECTIONS[0],
            { heading: 'More', body: 'Read [our story](https://elsewhere.example/story).' },
            { heading: 'Even more', body: 'See www.elsewhere.example for more.' },
          ],
        },
      },
      [
        {
          path: '/body/content/sections/1/body',
          message: "links to https://elsewhere.example/story, which is not one of the page's actions",
        },
        {
          path: '/body/content/sections/2/body',
          message: "links to www.elsewhere.example, which is not one of the page's actions",
        },
      ],
    );
  });

  it('empty parts: an empty string, or one a reader sees as empty', async () => {
    await expectRefused(draft, { content: { headline: '' } }, [
      { path: '/body/content/headline', message: 'must not be empty' },
    ]);
    await expectRefused(draft, { content: { headline: '   ' } }, [
      { path: '/body/content/headline', message: 'is empty' },
    ]);
    await expectRefused(draft, { content: { sections: [{ heading: 'Why', body: '' }] } }, [
      { path: '/body/content/sections/0/body', message: 'must not be empty' },
    ]);
    await expectRefused(draft, { content: { sections: [{ heading: 'Why', body: '<div></div>' }] } }, [
      { path: '/body/content/sections/0/body', message: 'is empty' },
    ]);
  });

  it('too long, too many sections', async () => {
    await expectRefused(draft, { content: { headline: 'x'.repeat(91) } }, [
      { path: '/body/content/headline', message: 'must have at most 90 characters (it has 91)' },
    ]);
    await expectRefused(draft, { content: { subheadline: 'x'.repeat(301) } }, [
      { path: '/body/content/subheadline', message: 'must have at most 300 characters (it has 301)' },
    ]);
    await expectRefused(draft, { content: { sections: [...SECTIONS, ...SECTIONS, SECTIONS[0]] } }, [
      { path: '/body/content/sections', message: 'must have at most 4 items (it has 5)' },
    ]);
  });

  it('unknown fields, the actions and metadata among them, and a missing content', async () => {
    await expectRefused(draft, { content: { headline: 'Hi Maya' }, state: 'published' }, [
      { path: '/body/state', message: 'is not a known field' },
    ]);
    await expectRefused(draft, { content: { actions: [] } }, [
      { path: '/body/content/actions', message: 'is not a known field' },
    ]);
    await expectRefused(draft, { content: { metadata: { title: 'Hi' } } }, [
      { path: '/body/content/metadata', message: 'is not a known field' },
    ]);
    await expectRefused(draft, { content: { sections: [{ heading: 'Hi', body: 'There.', image: 'x' }] } }, [
      { path: '/body/content/sections/0/image', message: 'is not a known field' },
    ]);
    await expectRefused(draft, { headline: 'Hi Maya' }, [
      { path: '/body/content', message: 'is required' },
      { path: '/body/headline', message: 'is not a known field' },
    ]);
  });

  it('every failing part at once', async () => {
    await expectRefused(
      draft,
      {
        content: {
          headline: `${OTHER_BRAND} but **better**`,
          subheadline: NOTE,
          sections: [SECTIONS[0], { heading: 'Plan', body: `${CONTEXT} [Go](https://elsewhere.example)` }],
        },
      },
      [
        { path: '/body/content/headline', message: 'shows markup' },
        { path: '/body/content/headline', message: 'names another brand' },
        { path: '/body/content/subheadline', message: "quotes the person's log" },
        { path: '/body/content/sections/1/body', message: "quotes the audience's private context" },
        { path: '/body/content/sections/1/body', message: 'links to https://elsewhere.example' },
      ],
    );
  });

  it('the context the version was queued with, after the audience was given another', async () => {
    const other = await draftFor();
    expect(
      (await api.patch(other.base, { supplementaryContext: 'Maya now reports to the new COO.' })).status,
    ).toBe(200);
    await expectRefused(other, { content: { subheadline: CONTEXT } }, [
      { path: '/body/content/subheadline', message: "quotes the audience's private context" },
    ]);
    await expectRefused(other, { content: { subheadline: 'Maya now reports to the new COO.' } }, [
      { path: '/body/content/subheadline', message: "quotes the audience's private context" },
    ]);
  });
});

const EDIT = { content: { headline: 'Spring pages for Northwind' } };

/** Expects the edit refused with 409 invalid_state naming `state`, and the version unchanged. */
async function expectInvalidState(url: string, state: string) {
  const before = await version(url);
  const response = await api.patch(url, EDIT);
  expect(response.status, JSON.stringify(response.body)).toBe(409);
  expect(response.body.code).toBe('invalid_state');
  expect(response.body.detail).toContain(state);
  expect(await version(url)).toEqual(before);
}

describe('PATCH …/versions/{version_id}: only a draft', () => {
  it('is 409 invalid_state for a queued, cancelled or published version, the baseline too', async () => {
    const draft = await draftFor();
    const audience = (await api.post(`${draft.base}/versions`)).body;
    const queued = `${draft.base}/versions/${audience.latestVersion.versionId}`;
    await expectInvalidState(queued, 'queued');
    expect((await api.post(`${draft.base}/cancel`)).status).toBe(200);
    await expectInvalidState(queued, 'cancelled');
    await expectInvalidState(`${draft.base}/versions/${audience.publishedVersion.versionId}`, 'published');

    const published = await draftFor();
    expect((await api.post(`${published.base}/publish`)).status).toBe(200);
    await expectInvalidState(published.url, 'published');
  });

  it('is 409 for a draft of an archived audience', async () => {
    const draft = await draftFor();
    expect((await api.delete(draft.base)).status).toBe(200);
    await expectInvalidState(draft.url, 'archived');
    // Another audience's version under an archived audience is still not found (found by the fuzz suite).
    const other = await draftFor();
    expect((await api.patch(`${draft.base}/versions/${other.versionId}`, { content: {} })).status).toBe(404);
  });
});

describe('generating again', () => {
  it('leaves an edited draft as it is and makes a new version, which can be published', async () => {
    const draft = await draftFor();
    const edited = (await api.patch(draft.url, { content: { headline: 'Spring pages for Northwind' } })).body;
    expect(edited.editedAt).not.toBeNull();

    const audience = (await api.post(`${draft.base}/versions`)).body;
    expect(audience.latestVersion.versionNumber).toBe(2);
    expect(await version(draft.url)).toEqual(edited);
    await server.worker().drain();
    const fresh = await version(`${draft.base}/versions/${audience.latestVersion.versionId}`);
    expect(fresh).toMatchObject({ versionNumber: 2, state: 'draft', editedAt: null });
    expect(fresh.content.headline).not.toBe('Spring pages for Northwind');
    expect(await version(draft.url)).toEqual(edited);

    const publish = await api.post(`${draft.base}/publish`);
    expect(publish.status).toBe(200);
    expect(publish.body.publishedVersion.versionId).toBe(fresh.versionId);
    expect(await version(draft.url)).toEqual(edited);
    const page = await server.visitor().get(draft.pageUrl);
    expect(page.body).toContain(`<h1>${fresh.content.headline}</h1>`);
  });
});

describe('who may read and edit a version', () => {
  it("is 404 for an unknown version, another audience's, another page's path, and another tenant", async () => {
    const draft = await draftFor();
    const other = await draftFor();
    const before = await version(draft.url);
    const wrong = [
      `${draft.base}/versions/version_00000000000000000000000000`,
      `${draft.base}/versions/not-an-id`,
      `${draft.base}/versions/${other.versionId}`,
      `/v0/pages/${other.pageId}/audiences/${draft.audienceId}/versions/${draft.versionId}`,
    ];
    for (const url of wrong) {
      for (const response of [await api.get(url), await api.patch(url, EDIT)]) {
        expect(response.status, url).toBe(404);
        expect(response.body.code).toBe('not_found');
      }
    }
    const stranger = await server.newTenant();
    for (const response of [await stranger.get(draft.url), await stranger.patch(draft.url, EDIT)]) {
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
    const theirs = await draftFor(stranger);
    expect((await api.get(theirs.url)).status).toBe(404);
    expect((await api.patch(theirs.url, EDIT)).status).toBe(404);
    expect(await version(draft.url)).toEqual(before);
    expect(await version(theirs.url, stranger)).toMatchObject({ state: 'draft', editedAt: null });
  });

  it('a read-only key may read a version but not edit it (403, nothing changed)', async () => {
    const draft = await draftFor();
    const key = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    const reader = api.as(key.apiKey);
    const before = await version(draft.url, reader);
    const response = await reader.patch(draft.url, EDIT);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('forbidden');
    expect(await version(draft.url)).toEqual(before);
  });

  it('needs an API key', async () => {
    const draft = await draftFor();
    expect((await server.anonymous().get(draft.url)).status).toBe(401);
    expect((await server.anonymous().patch(draft.url, EDIT)).status).toBe(401);
  });
});
