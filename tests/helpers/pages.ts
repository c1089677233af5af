import http from 'node:http';
import { issueToken } from '../../src/public/token.ts';
import { getTenant } from '../../src/resources/tenants/service.ts';
import { Signer } from '../../src/shared/signing.ts';
import { anyTables } from './any-tables.ts';
import { type Client, ok, TEST_SECRET, type TestServer } from './server.ts';

/** A page as a marketer makes one: two actions (a link and the form), the form in the header. */
export const SAMPLE_PAGE = {
  name: 'Spring launch',
  pageContext: 'Tailor helps retailers grow. It personalizes every page.',
  brandId: 'acme',
  actions: [
    { actionId: 'demo', buttonTitle: 'Book a demo', actionType: 'link', url: 'https://example.com/demo' },
    { actionId: 'contact', buttonTitle: 'Talk to sales', actionType: 'form' },
  ],
  headerActionId: 'contact',
  actionCardWidgets: [],
  scripts: [],
};

/** A published page, one audience of it, and a page link that serves that audience. */
export interface LinkedPage {
  pageId: string;
  audienceId: string;
  pageLinkId: string;
  /** The page's address on the server, from /p on. */
  url: string;
  /** The tenant's slug, as the address has it. */
  slug: string;
}

export interface LinkedPageOptions {
  /** Fields over SAMPLE_PAGE. */
  page?: Record<string, unknown>;
  /** The audience's create body. */
  audience?: Record<string, unknown>;
  /** Generate version 1 and publish it; otherwise visitors see version 0, the page as it is. */
  personalize?: boolean;
  path: string;
}

/** Makes a LinkedPage through the API as `client`, generating with `server`'s worker. */
export async function publishLinkedPage(
  server: TestServer,
  client: Client,
  { page = {}, audience = {}, personalize = true, path }: LinkedPageOptions,
): Promise<LinkedPage> {
  const { pageId } = await ok(client.post('/v0/pages', { ...SAMPLE_PAGE, ...page }), 201);
  await ok(client.post(`/v0/pages/${pageId}/publish`));
  const { audienceId } = await ok(client.post(`/v0/pages/${pageId}/audiences`, audience), 201);
  if (personalize) {
    await server.worker().drain();
    await ok(client.post(`/v0/pages/${pageId}/audiences/${audienceId}/publish`));
  }
  const link = await ok(
    client.post('/v0/page_links', { path, target: { targetType: 'audience', audienceId } }),
    201,
  );
  const { slug } = await getTenant(anyTables(server.database), client.tenantId);
  return { pageId, audienceId, pageLinkId: link.pageLinkId, url: `/p/${slug}${path}`, slug };
}

export interface HostAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * GET `path` from the server at `baseUrl` with the Host header `host`, as a browser that resolved
 * `host` to that server would ask (fetch may not set Host).
 */
export function getAtHost(
  baseUrl: string,
  host: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<HostAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.get({ hostname, port, path, headers: { ...headers, host } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    request.on('error', reject);
  });
}

/** A page with audiences, the first linked at a path, and a tracker's token for that link. */
export interface TrackedPage {
  pageId: string;
  /** In the order of `audiences`; the first is the linked one. */
  audienceIds: string[];
  pageLinkId: string;
  /** What the tracker sends with its events: signed for the link's personalized arm, for an hour. */
  token: string;
}

/**
 * Makes a TrackedPage through the API as `client`: a page with one link action, an audience for
 * each create body in `audiences`, and a page link at `path` to the first of them. Nothing is
 * generated or published: events count whatever is served.
 */
export async function trackedPage(
  client: Client,
  { path, audiences = [{}] }: { path: string; audiences?: Record<string, unknown>[] },
): Promise<TrackedPage> {
  const { pageId } = await ok(
    client.post('/v0/pages', {
      name: 'Tracked',
      pageContext: 'C.',
      brandId: 'b',
      actions: [{ actionId: 'cta', buttonTitle: 'Go', actionType: 'link' }],
      actionCardWidgets: [],
      scripts: [],
    }),
    201,
  );
  const audienceIds: string[] = [];
  for (const audience of audiences) {
    audienceIds.push((await ok(client.post(`/v0/pages/${pageId}/audiences`, audience), 201)).audienceId);
  }
  const audienceId = audienceIds[0] as string;
  const link = await ok(
    client.post('/v0/page_links', { path, target: { targetType: 'audience', audienceId } }),
    201,
  );
  const token = issueToken(new Signer(TEST_SECRET), {
    tenantId: client.tenantId,
    pageId,
    audienceId,
    pageLinkId: link.pageLinkId,
    arm: 'personalized',
    expiresAt: Date.now() + 3_600_000,
  });
  return { pageId, audienceIds, pageLinkId: link.pageLinkId, token };
}
