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
  expiresAt: 1_000_000,
};

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
