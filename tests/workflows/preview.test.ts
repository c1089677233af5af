import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

async function audienceWithDraft(client = api) {
  const page = (
    await client.post('/v0/pages', {
      name: 'Spring offer',
      pageContext: 'Spring is here. Our offer helps every store sell more.',
      brandId: 'acme',
      actions: [{ actionId: 'demo', buttonTitle: 'Book a demo', actionType: 'form' }],
      actionCardWidgets: [],
      scripts: [{ name: 'tag', content: '<script>window.tagRan = 1</script>' }],
    })
  ).body;
  const audience = (
    await client.post(`/v0/pages/${page.pageId}/audiences`, { supplementaryContext: 'Never say this aloud.' })
  ).body;
  const queued = audience.latestVersion.versionId;
  await server.worker().drain();
  return { page, audience, draft: queued, baseline: audience.publishedVersion.versionId };
}

const previewUrl = (pageId: string, audienceId: string, versionId: string) =>
  `/v0/pages/${pageId}/audiences/${audienceId}/versions/${versionId}/preview`;

describe('GET …/versions/{version_id}/preview', () => {
  it('answers a draft as a visitor would see it, with no tracking, no scripts, an inert form, noindex', async () => {
    const { page, audience, draft } = await audienceWithDraft();
    const response = await api.get(previewUrl(page.pageId, audience.audienceId, draft));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('cache-control')).toBe('no-store');
    const html = response.body as string;
    const versions = (await api.get(`/v0/pages/${page.pageId}/audiences/${audience.audienceId}/versions`))
      .body;
    const content = versions.items[0].content;
    expect(versions.items[0].state).toBe('draft');
    expect(html).toContain(`<h1>${content.headline}</h1>`);
    expect(html).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(html).not.toContain('data-tailor-token');
    expect(html).not.toContain('tracker.js');
    expect(html).not.toContain('window.tagRan');
    expect(html).not.toContain('<form data-tailor-form');
    expect(html).toContain('type="submit" disabled');
    expect(html).not.toContain('Never say this aloud');
  });

  it('answers the baseline too, and any version of the audience that has content', async () => {
    const { page, audience, baseline } = await audienceWithDraft();
    const response = await api.get(previewUrl(page.pageId, audience.audienceId, baseline));
    expect(response.status).toBe(200);
    expect(response.body).toContain('<h1>Spring offer</h1>');
  });

  it('is 409 for a version without content yet', async () => {
    const { page, audience } = await audienceWithDraft();
    const queued = (await api.post(`/v0/pages/${page.pageId}/audiences/${audience.audienceId}/versions`)).body
      .latestVersion.versionId;
    const response = await api.get(previewUrl(page.pageId, audience.audienceId, queued));
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_state');
    expect(response.body.detail).toContain('queued');
  });

  it("is 404 for an unknown version, another audience's version, and another tenant's", async () => {
    const { page, audience, draft } = await audienceWithDraft();
    const other = await audienceWithDraft();
    const foreign = await audienceWithDraft(await server.newTenant());
    for (const url of [
      previewUrl(page.pageId, audience.audienceId, 'version_00000000000000000000000000'),
      previewUrl(page.pageId, audience.audienceId, other.draft),
      previewUrl(other.page.pageId, audience.audienceId, draft),
      previewUrl(foreign.page.pageId, foreign.audience.audienceId, foreign.draft),
    ]) {
      const response = await api.get(url);
      expect(response.status, url).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
  });

  it('needs an API key', async () => {
    const { page, audience, draft } = await audienceWithDraft();
    const response = await server.anonymous().get(previewUrl(page.pageId, audience.audienceId, draft));
    expect(response.status).toBe(401);
  });
});
