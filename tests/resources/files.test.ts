import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Database } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { downloadUrl, storageKey } from '../../src/resources/files/download-links.ts';
import { ImagePool } from '../../src/resources/files/image-pool.ts';
import { S3Storage } from '../../src/resources/files/s3-storage.ts';
import { File } from '../../src/resources/files/schema.ts';
import { PagesOrigin } from '../../src/shared/pages-origin.ts';
import { Signer } from '../../src/shared/signing.ts';
import { createTenantWithKey } from '../../src/workflows/tenant-setup/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { png } from '../helpers/images.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, startServer, TEST_SECRET, type TestServer, testDatabase } from '../helpers/server.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

/* Tiny, valid images of each accepted type. */

const JPEG = Buffer.from(
  '/9j/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAABAAEDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAf/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAAAP/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/AKAAD//Z',
  'base64',
);
const GIF = Buffer.from(
  '47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b',
  'hex',
);
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
const SVG = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8"?>\n<!-- a logo -->\n<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4" viewBox="0 0 4 4"><rect width="4" height="4" fill="#08f"/></svg>\n',
);

const IMAGES: [string, Buffer][] = [
  ['image/png', png()],
  ['image/jpeg', JPEG],
  ['image/gif', GIF],
  ['image/webp', WEBP],
  ['image/svg+xml', SVG],
];

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function upload(
  bytes: Buffer | string,
  contentType?: string,
  client = api,
  headers: Record<string, string> = {},
) {
  return client.request('POST', '/v0/files', {
    raw: bytes,
    headers: { ...(contentType ? { 'content-type': contentType } : {}), ...headers },
  });
}

async function uploaded(bytes: Buffer, contentType: string, client = api) {
  const response = await upload(bytes, contentType, client);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expectSchema(File, response.body);
  return response.body;
}

/** Links are absolute on the configured public URL; the test server listens elsewhere. */
function onServer(url: string): string {
  const link = new URL(url);
  return `${server.url}${link.pathname}${link.search}`;
}

function fetchLink(url: string) {
  return fetch(onServer(url));
}

/** The file as read once the image pool is done with it: previews are made after the upload answers. */
async function afterPreview(fileId: string, client = api) {
  await server.images.idle();
  const response = await client.get(`/v0/files/${fileId}`);
  expect(response.status).toBe(200);
  return response.body;
}

async function fileCount(tenantId: string): Promise<number> {
  const row = await anyTables(server.database)
    .selectFrom('files')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('POST /v0/files', () => {
  it.each(IMAGES)('accepts %s: 201, Location, size and sha256 of the bytes', async (contentType, bytes) => {
    const response = await upload(bytes, contentType);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expectSchema(File, response.body);
    expect(response.headers.get('location')).toBe(`/v0/files/${response.body.fileId}`);
    expect(response.body).toMatchObject({
      contentType,
      size: bytes.length,
      sha256: sha256(bytes),
      deletedAt: null,
    });
    expect(response.body.fileId).toMatch(/^file_[a-z0-9]{26}$/);
    expect(response.body.createdAt).toMatch(/^\+[1-9]\d{1,14}$/);
    expect(Math.abs(Number(response.body.createdAt.slice(1)) - Date.now())).toBeLessThan(60_000);
  });

  it.each(IMAGES)(
    'serves %s back byte for byte through its download URL, without a key',
    async (contentType, bytes) => {
      const file = await uploaded(bytes, contentType);
      expect(file.downloadUrl.startsWith('http://127.0.0.1/')).toBe(true);
      const download = await fetchLink(file.downloadUrl);
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe(contentType);
      expect(download.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    },
  );

  it.each(IMAGES)('makes a WebP preview of %s after answering', async (contentType, bytes) => {
    const file = await uploaded(bytes, contentType);
    expect(file.previewDownloadUrl).toBeNull();
    const preview = await fetchLink((await afterPreview(file.fileId)).previewDownloadUrl);
    expect(preview.status).toBe(200);
    expect(preview.headers.get('content-type')).toBe('image/webp');
    const webp = Buffer.from(await preview.arrayBuffer());
    expect(webp.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(webp.subarray(8, 12).toString('latin1')).toBe('WEBP');
  });

  it('serves an SVG with a Content-Security-Policy that lets nothing run or load', async () => {
    const scripted = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><script>alert(document.cookie)</script></svg>',
    );
    const file = await uploaded(scripted, 'image/svg+xml');
    const download = await fetchLink(file.downloadUrl);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/svg+xml');
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    const policy = download.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain('sandbox');
    expect(policy).not.toContain('script-src');
  });

  it('accepts media type parameters and any letter case, and stores the bare type', async () => {
    for (const [header, type, bytes] of [
      ['image/svg+xml; charset=utf-8', 'image/svg+xml', SVG],
      ['IMAGE/PNG', 'image/png', png()],
    ] as const) {
      expect((await uploaded(bytes, header)).contentType).toBe(type);
    }
  });

  it('accepts an SVG whose size is too large to preview, without a preview', async () => {
    const huge = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="4" height="4"/></svg>',
    );
    const file = await uploaded(huge, 'image/svg+xml');
    expect((await afterPreview(file.fileId)).previewDownloadUrl).toBeNull();
    expect((await fetchLink(file.downloadUrl)).status).toBe(200);
  });

  it.each([
    ['an <image href>', '<image href="https://cdn.example/a.png" width="4" height="4"/>'],
    ['an <image xlink:href>', '<image xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="a.png"/>'],
    [
      'a <foreignObject>',
      '<foreignObject width="4" height="4"><div xmlns="http://www.w3.org/1999/xhtml">Hi</div></foreignObject>',
    ],
    ['a <style> with CDATA', '<style><![CDATA[rect { fill: #08f; }]]></style><rect width="4" height="4"/>'],
    [
      'an <a> link and <use>',
      '<defs><rect id="r" width="4" height="4"/></defs><a href="https://x.example"><use href="#r"/></a>',
    ],
  ])('accepts any well-formed SVG, here with %s, and serves it sandboxed', async (_label, content) => {
    const bytes = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4">${content}</svg>`,
    );
    const file = await uploaded(bytes, 'image/svg+xml');
    expect(file).toMatchObject({ contentType: 'image/svg+xml', size: bytes.length });
    const download = await fetchLink(file.downloadUrl);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-security-policy')).toContain('sandbox');
    expect(download.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('accepts exactly 10 MiB', async () => {
    const bytes = Buffer.concat([png(), Buffer.alloc(10 * 1024 * 1024 - png().length)]);
    const file = await uploaded(bytes, 'image/png');
    expect(file).toMatchObject({ size: 10 * 1024 * 1024, sha256: sha256(bytes) });
  });

  it('is 413 payload_too_large over 10 MiB, and stores nothing', async () => {
    const tenant = await server.newTenant();
    const bytes = Buffer.concat([png(), Buffer.alloc(10 * 1024 * 1024 - png().length + 1)]);
    const response = await upload(bytes, 'image/png', tenant);
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('payload_too_large');
    expect(response.body.detail).toContain('10 MiB');
    expect(await fileCount(tenant.tenantId)).toBe(0);
  });

  const mismatches: [string, Buffer | string, string | undefined][] = [
    ['PNG bytes declared as JPEG', png(), 'image/jpeg'],
    ['JPEG bytes declared as PNG', JPEG, 'image/png'],
    ['GIF bytes declared as WebP', GIF, 'image/webp'],
    ['WebP bytes declared as GIF', WEBP, 'image/gif'],
    ['PNG bytes declared as SVG', png(), 'image/svg+xml'],
    ['SVG declared as PNG', SVG, 'image/png'],
    ['HTML declared as SVG', '<html><body><script>alert(1)</script></body></html>', 'image/svg+xml'],
    [
      'an SVG outside the SVG namespace',
      '<svg width="4" height="4"><rect width="4" height="4"/></svg>',
      'image/svg+xml',
    ],
    [
      'malformed SVG XML',
      '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4"></svg>',
      'image/svg+xml',
    ],
    ['an SVG root after other content', 'hello <svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml'],
    [
      'an SVG that is not UTF-8',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg">\xff</svg>', 'latin1'),
      'image/svg+xml',
    ],
    [
      'a PNG signature with a broken header',
      Buffer.concat([png().subarray(0, 8), Buffer.alloc(64, 7)]),
      'image/png',
    ],
    ['a type that is not accepted', png(), 'image/bmp'],
    ['text', 'hello', 'text/plain'],
    ['JSON', '{"name":"x"}', 'application/json'],
    ['no Content-Type', png(), undefined],
  ];
  it.each(mismatches)(
    'is 415 unsupported_media_type for %s, and stores nothing',
    async (_label, bytes, type) => {
      const tenant = await server.newTenant();
      const response = await upload(bytes, type, tenant);
      expect(response.status).toBe(415);
      expect(response.body.code).toBe('unsupported_media_type');
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(await fileCount(tenant.tenantId)).toBe(0);
    },
  );

  it('is 400 for an empty body', async () => {
    const tenant = await server.newTenant();
    const response = await upload(Buffer.alloc(0), 'image/png', tenant);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(await fileCount(tenant.tenantId)).toBe(0);
  });

  it('needs an API key', async () => {
    const response = await upload(png(), 'image/png', server.anonymous());
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('missing_api_key');
  });

  it('replays an upload retried with the same Idempotency-Key; 422 for other bytes', async () => {
    const tenant = await server.newTenant();
    const key = { 'Idempotency-Key': 'upload-once' };
    const first = await upload(png(1, 2, 3), 'image/png', tenant, key);
    expect(first.status).toBe(201);
    const retry = await upload(png(1, 2, 3), 'image/png', tenant, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    const other = await upload(png(3, 2, 1), 'image/png', tenant, key);
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    expect(await fileCount(tenant.tenantId)).toBe(1);
  });
});

describe('GET /v0/files/{id}', () => {
  it('returns the metadata and fresh signed links', async () => {
    const file = await uploaded(GIF, 'image/gif');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await api.get(`/v0/files/${file.fileId}`);
    expect(response.status).toBe(200);
    expectSchema(File, response.body);
    const { downloadUrl: _a, previewDownloadUrl: _b, ...metadata } = file;
    expect(response.body).toMatchObject(metadata);
    expect(response.body.downloadUrl).not.toBe(file.downloadUrl);
    expect(Buffer.from(await (await fetchLink(response.body.downloadUrl)).arrayBuffer()).equals(GIF)).toBe(
      true,
    );
  });

  it('is 404 for an unknown, malformed or foreign id', async () => {
    const foreign = await uploaded(GIF, 'image/gif', await server.newTenant());
    for (const id of ['file_00000000000000000000000000', 'x', foreign.fileId]) {
      const response = await api.get(`/v0/files/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
  });

  it('needs an API key', async () => {
    const file = await uploaded(GIF, 'image/gif');
    expect((await server.anonymous().get(`/v0/files/${file.fileId}`)).status).toBe(401);
  });
});

describe('signed download links', () => {
  let mine: { fileId: string; downloadUrl: string; previewDownloadUrl: string };
  let theirs: { fileId: string; downloadUrl: string; previewDownloadUrl: string };
  let other: Client;

  beforeAll(async () => {
    other = await server.newTenant();
    mine = await uploaded(png(10, 20, 30), 'image/png');
    theirs = await uploaded(png(40, 50, 60), 'image/png', other);
  });

  function changed(url: string, change: (link: URL) => void): string {
    const link = new URL(url);
    change(link);
    return link.toString();
  }

  async function expectRefused(url: string, status = 403) {
    const response = await fetchLink(url);
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    return (await response.json()) as { code: string; detail: string };
  }

  it('a link carries an expiry one hour ahead', () => {
    const expires = Number(new URL(mine.downloadUrl).searchParams.get('expires'));
    expect(expires - Date.now()).toBeGreaterThan(59 * 60 * 1000);
    expect(expires - Date.now()).toBeLessThanOrEqual(60 * 60 * 1000);
  });

  it('an expired link is 403', async () => {
    const tenantId = new URL(mine.downloadUrl).searchParams.get('tenant') as string;
    const expired = downloadUrl(
      { signer: new Signer(TEST_SECRET), publicUrl: 'http://127.0.0.1' },
      { tenantId, fileId: mine.fileId, variant: 'original', format: 'png' },
      Date.now() - 60 * 60 * 1000 - 1,
    );
    const problem = await expectRefused(expired);
    expect(problem.code).toBe('forbidden');
    expect(problem.detail).toContain('expired');
  });

  it('a link whose signature, expiry or type was changed is 403', async () => {
    const tampered = [
      changed(mine.downloadUrl, (link) =>
        link.searchParams.set('signature', `${link.searchParams.get('signature')?.slice(0, -2)}AA`),
      ),
      changed(mine.downloadUrl, (link) =>
        link.searchParams.set('expires', String(Number(link.searchParams.get('expires')) + 86_400_000)),
      ),
      changed(mine.downloadUrl, (link) => link.searchParams.set('type', 'svg')),
    ];
    for (const url of tampered) expect((await expectRefused(url)).code).toBe('forbidden');
  });

  it('a link with a part missing is 400', async () => {
    await expectRefused(
      changed(mine.downloadUrl, (link) => link.searchParams.delete('signature')),
      400,
    );
  });

  it("another tenant's link cannot be turned into a link to a different file", async () => {
    const myTenant = new URL(mine.downloadUrl).searchParams.get('tenant') as string;
    const attempts = [
      // their signature, my file
      changed(theirs.downloadUrl, (link) => {
        link.pathname = `/v0/public/files/${mine.fileId}`;
      }),
      // their signature, my file and my tenant
      changed(theirs.downloadUrl, (link) => {
        link.pathname = `/v0/public/files/${mine.fileId}`;
        link.searchParams.set('tenant', myTenant);
      }),
      // their signature, their file id, my tenant's storage
      changed(theirs.downloadUrl, (link) => link.searchParams.set('tenant', myTenant)),
      // an original's signature on the preview
      changed(theirs.downloadUrl, (link) => {
        link.pathname = `/v0/public/files/${theirs.fileId}/preview`;
      }),
    ];
    for (const url of attempts) expect((await expectRefused(url)).code).toBe('forbidden');
    expect((await fetchLink(theirs.downloadUrl)).status).toBe(200);
  });

  it('a link to bytes that are gone is 404', async () => {
    const file = await uploaded(png(7, 7, 7), 'image/png');
    const tenantId = new URL(file.downloadUrl).searchParams.get('tenant') as string;
    await server.storage.remove(storageKey(tenantId, file.fileId, 'original'));
    expect((await expectRefused(file.downloadUrl, 404)).code).toBe('not_found');
  });

  it('answers HEAD like GET, without a body', async () => {
    const response = await fetch(onServer(mine.downloadUrl), { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('content-length')).toBe(String(png(10, 20, 30).length));
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });
});

describe('S3-compatible storage', () => {
  let s3: S3rver;
  let storage: S3Storage;
  let database: Database;
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    s3 = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-s3-')),
      configureBuckets: [{ name: 'tailor-files', configs: [] }],
    });
    const { port } = await s3.run();
    storage = new S3Storage({
      bucket: 'tailor-files',
      prefix: 'test/',
      client: {
        endpoint: `http://127.0.0.1:${port}`,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      },
    });
    database = await testDatabase();
    await migrateToLatest(database);
    app = await buildApp({
      database,
      signer: new Signer(TEST_SECRET),
      storage,
      images: new ImagePool(),
      publicUrl: 'http://127.0.0.1',
      pages: new PagesOrigin('http://127.0.0.1:8081'),
      rateLimitRps: 0,
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
    storage.close();
    await s3.close();
  });

  it('puts, gets and removes bytes; a missing key is undefined and removing it is fine', async () => {
    await storage.put('t/one', Buffer.from('bytes'));
    expect((await storage.get('t/one'))?.toString()).toBe('bytes');
    await storage.remove('t/one');
    expect(await storage.get('t/one')).toBeUndefined();
    await storage.remove('t/one');
  });

  it('keeps uploaded files and serves them through signed links', async () => {
    const tenant = await createTenantWithKey(database, {
      name: `S3 ${randomBytes(6).toString('hex')}`,
    });
    const bytes = png(1, 1, 1);
    const created = await fetch(`${url}/v0/files`, {
      method: 'POST',
      headers: { 'x-api-key': tenant.apiKey, 'content-type': 'image/png' },
      body: bytes,
    });
    expect(created.status).toBe(201);
    const file = (await created.json()) as { fileId: string; downloadUrl: string };
    expect((await storage.get(storageKey(tenant.tenantId, file.fileId, 'original')))?.equals(bytes)).toBe(
      true,
    );
    const link = new URL(file.downloadUrl);
    const download = await fetch(`${url}${link.pathname}${link.search}`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-length')).toBe(String(bytes.length));
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  });
});
