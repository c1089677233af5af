import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken, type PageToken, readToken } from '../../src/public/token.ts';
import { Signer } from '../../src/shared/signing.ts';
import { trackedPage } from '../helpers/pages.ts';
import { type Client, startServer, TEST_SECRET, type TestServer } from '../helpers/server.ts';

// A page's token is verified once per process and kept (src/public/token.ts): what is kept must
// never let through a token that reading it afresh would refuse.

const claims: PageToken = {
  tenantId: 't',
  pageId: 'p',
  audienceId: 'a',
  pageLinkId: 'l',
  arm: 'personalized',
  versionId: 'version_01jdq1x5d7f9h2k4m6p8r1t3vw',
  expiresAt: 1_000_000,
};

/** A token as Tailor signed them before they named their version: still valid for its 7 days. */
function olderToken(signer: Signer, payload: Record<string, unknown>): string {
  const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${encoded}.${signer.sign('public-token', encoded)}`;
}

describe('what a token names', () => {
  it('names the arm and the version the page showed, the version in a few more bytes', () => {
    const signer = new Signer(TEST_SECRET);
    const baseline = { ...claims, arm: 'baseline' as const };
    expect(readToken(signer, issueToken(signer, baseline), 0)).toEqual(baseline);
    const { versionId: _, ...unversioned } = claims;
    const growth = issueToken(signer, claims).length - issueToken(signer, unversioned).length;
    // The version's 26 characters and its key, base64url: the `version_` prefix is not repeated.
    expect(growth).toBeLessThanOrEqual(44);
  });

  it('reads a token signed before tokens named a version: its arm, and no version', () => {
    const signer = new Signer(TEST_SECRET);
    const fields = { t: 't', p: 'p', a: 'a', l: 'l', e: 1_000_000 };
    expect(readToken(signer, olderToken(signer, fields), 0)).toEqual({
      ...claims,
      versionId: null,
    });
    expect(readToken(signer, olderToken(signer, { ...fields, b: 1 }), 0)).toEqual({
      ...claims,
      arm: 'baseline',
      versionId: null,
    });
  });
});

describe('verified tokens kept per signer', () => {
  it('still refuses a kept token once it has expired', () => {
    const signer = new Signer(TEST_SECRET);
    const token = issueToken(signer, claims);
    expect(readToken(signer, token, 999_999)).toEqual(claims);
    expect(readToken(signer, token, 999_999)).toEqual(claims);
    expect(readToken(signer, token, 1_000_000)).toBeUndefined();
  });

  it('keeps a token for the signer that verified it only', () => {
    const signer = new Signer(TEST_SECRET);
    const token = issueToken(signer, claims);
    expect(readToken(signer, token, 0)).toEqual(claims);
    expect(readToken(new Signer(`${TEST_SECRET}-other`), token, 0)).toBeUndefined();
  });

  it('refuses an altered token after its original was kept', () => {
    const signer = new Signer(TEST_SECRET);
    const token = issueToken(signer, claims);
    expect(readToken(signer, token, 0)).toEqual(claims);
    const [encoded, signature] = token.split('.') as [string, string];
    const other = issueToken(signer, { ...claims, audienceId: 'b' }).split('.')[0];
    expect(readToken(signer, `${other}.${signature}`, 0)).toBeUndefined();
    expect(readToken(signer, `${token}.x`, 0)).toBeUndefined();
    expect(readToken(signer, `${encoded}.${signature.slice(1)}`, 0)).toBeUndefined();
  });
});

describe('POST /v0/public/events with a kept token', () => {
  let server: TestServer;
  let api: Client;

  beforeAll(async () => {
    server = await startServer();
    api = await server.newTenant();
  });
  afterAll(() => server.close());

  it('is refused once the token expires, though it was accepted before', async () => {
    const page = await trackedPage(api, { path: '/kept-token' });
    const [audienceId] = page.audienceIds as [string];
    const token = issueToken(new Signer(TEST_SECRET), {
      tenantId: api.tenantId,
      pageId: page.pageId,
      audienceId,
      pageLinkId: page.pageLinkId,
      arm: 'personalized',
      expiresAt: Date.now() + 1_000,
    });
    const body = { token, sessionId: 'kept-token-1', events: [{ type: 'session_start', at: Date.now() }] };
    const accepted = await server.visitor().post('/v0/public/events', body);
    expect(accepted.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const refused = await server.visitor().post('/v0/public/events', body);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('validation_failed');
    expect(JSON.stringify(refused.body)).toContain('/body/token');
  });
});
