import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import { CurrentTenant } from '../../src/resources/tenants/schema.ts';
import { getTenant } from '../../src/resources/tenants/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { publishLinkedPage } from '../helpers/pages.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

describe('GET /v0/tenant', () => {
  it("answers the caller's tenant and key", async () => {
    const response = await api.get('/v0/tenant');
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expectSchema(CurrentTenant, response.body);
    const tenant = await getTenant(anyTables(server.database), api.tenantId);
    expect(response.body).toEqual({
      tenantId: api.tenantId,
      name: tenant.name,
      slug: tenant.slug,
      pagesUrl: `${server.pagesUrl}/p/${tenant.slug}`,
      key: { keyId: expect.stringMatching(/^key_[a-z0-9]{26}$/), readOnly: false },
    });
  });

  it('names the key that asks: a read-only key too', async () => {
    const key = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    const response = await api.as(key.apiKey).get('/v0/tenant');
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.tenantId).toBe(api.tenantId);
    expect(response.body.key).toEqual({ keyId: key.keyId, readOnly: true });
  });

  it('gives where public page URLs start: a link path follows pagesUrl', async () => {
    const { slug, pagesUrl } = (await api.get('/v0/tenant')).body;
    const page = await publishLinkedPage(server, api, { personalize: false, path: '/from-the-tenant' });
    const served = await fetch(`${pagesUrl}/from-the-tenant`);
    expect(served.status).toBe(200);
    expect(page.url).toBe(`/p/${slug}/from-the-tenant`);
  });

  it('tells each tenant only about itself, and needs a key', async () => {
    const other = await server.newTenant();
    expect((await other.get('/v0/tenant')).body.tenantId).toBe(other.tenantId);
    const anonymous = await server.anonymous().get('/v0/tenant');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('missing_api_key');
  });
});
