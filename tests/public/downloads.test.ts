import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACKER_SCRIPT } from '../../src/public/tracker.ts';
import { publishLinkedPage } from '../helpers/pages.ts';
import { type RawAnswer, rawGet } from '../helpers/raw-get.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

/** What a visitor downloads, and how: the tracker's size budget, and compression when asked for. */

/** The most the tracker may weigh gzipped (at zlib's default level), as Plausible's script does. */
const TRACKER_GZIP_BUDGET = 1000;
const TRACKER_PATH = '/v0/public/tracker.js';

let server: TestServer;
let api: Client;
let pageUrl: string;

/** A GET with exactly these headers, on the pages origin unless `base` says otherwise. */
function rawGetAt(
  path: string,
  headers: Record<string, string> = {},
  base = server.pagesUrl,
): Promise<RawAnswer> {
  return rawGet(`${base}${path}`, headers);
}

function decoded(response: RawAnswer): string {
  const encoding = response.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(response.body).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(response.body).toString('utf8');
  expect(encoding).toBeUndefined();
  return response.body.toString('utf8');
}

/** Each request gets a page with a fresh token: the rest of the page is the same. */
const withoutToken = (page: string) => page.replace(/data-tailor-token="[^"]*"/, 'data-tailor-token=""');

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  pageUrl = (await publishLinkedPage(server, api, { path: '/spring' })).url;
});
afterAll(async () => {
  await server?.close();
});

describe('the tracking script', () => {
  it(`weighs at most ${TRACKER_GZIP_BUDGET} bytes gzipped, as served`, async () => {
    const response = await rawGetAt(TRACKER_PATH);
    expect(response.status).toBe(200);
    expect(response.body.toString('utf8')).toBe(TRACKER_SCRIPT);
    const gzipped = gzipSync(response.body).length;
    expect(
      gzipped,
      `the tracker is ${gzipped} bytes gzipped (${response.body.length} minified); the budget is ${TRACKER_GZIP_BUDGET}`,
    ).toBeLessThanOrEqual(TRACKER_GZIP_BUDGET);
  });

  it('is minified: no comments, no indentation', () => {
    expect(TRACKER_SCRIPT).not.toMatch(/\/\/ |\/\*|\n {2}/);
    expect(TRACKER_SCRIPT.trim().split('\n')).toHaveLength(1);
  });
});

describe('compression of what visitors download', () => {
  const cases = [
    { acceptEncoding: 'gzip', expected: 'gzip' },
    { acceptEncoding: 'gzip, deflate, br', expected: 'gzip' },
    { acceptEncoding: 'br;q=0.5, gzip;q=0.1', expected: 'gzip' },
    { acceptEncoding: 'br', expected: undefined },
    { acceptEncoding: 'identity', expected: undefined },
    { acceptEncoding: undefined, expected: undefined },
  ];

  for (const { acceptEncoding, expected } of cases) {
    const asked = acceptEncoding === undefined ? 'no Accept-Encoding' : `Accept-Encoding: ${acceptEncoding}`;
    const headers: Record<string, string> =
      acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding };

    it(`serves the tracker ${expected ?? 'uncompressed'} for ${asked}, with its headers`, async () => {
      const response = await rawGetAt(TRACKER_PATH, headers);
      expect(response.status).toBe(200);
      expect(response.headers['content-encoding']).toBe(expected);
      expect(response.headers.vary).toMatch(/accept-encoding/i);
      expect(response.headers['content-type']).toMatch(/^text\/javascript/);
      expect(response.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers.etag).toMatch(/^"[0-9a-f]{16}"$/);
      expect(decoded(response)).toBe(TRACKER_SCRIPT);
      if (expected) expect(response.body.length).toBeLessThan(Buffer.byteLength(TRACKER_SCRIPT));
    });

    it(`serves a page ${expected ?? 'uncompressed'} for ${asked}`, async () => {
      const plain = await rawGetAt(pageUrl);
      const response = await rawGetAt(pageUrl, headers);
      expect(response.status).toBe(200);
      expect(response.headers['content-encoding']).toBe(expected);
      expect(response.headers.vary).toMatch(/accept-encoding/i);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      // Kept by the browser, revalidated by its ETag (one per encoding) on each visit.
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers.etag).toMatch(expected ? /^"[\w-]+-gzip"$/ : /^"[\w-]+"$/);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      const page = decoded(response);
      expect(page).toMatch(/^<!doctype html>/);
      expect(withoutToken(page)).toBe(withoutToken(plain.body.toString('utf8')));
      if (expected) expect(response.body.length).toBeLessThan(plain.body.length / 2);
    });
  }

  it('compresses the not-found page too', async () => {
    const plain = await rawGetAt(`${pageUrl}/nowhere`);
    const response = await rawGetAt(`${pageUrl}/nowhere`, { 'accept-encoding': 'gzip, br' });
    expect(response.status).toBe(404);
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers.vary).toMatch(/accept-encoding/i);
    expect(decoded(response)).toBe(plain.body.toString('utf8'));
  });

  it('leaves the API alone: its JSON is not compressed', async () => {
    const response = await rawGetAt(
      '/v0/openapi.json',
      { 'accept-encoding': 'gzip, br', 'x-api-key': api.apiKey ?? '' },
      server.url,
    );
    expect(response.status).toBe(200);
    expect(response.body.length).toBeGreaterThan(1024);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(response.body.toString('utf8'))).toHaveProperty('openapi');
  });
});

describe('the tracker revalidated', () => {
  it('answers 304 to If-None-Match with its ETag, empty, whatever the encoding asked for', async () => {
    const first = await rawGetAt(TRACKER_PATH, { 'accept-encoding': 'br' });
    const etag = first.headers.etag ?? '';
    expect(etag).not.toBe('');
    for (const acceptEncoding of ['br', 'gzip', undefined]) {
      const again = await rawGetAt(TRACKER_PATH, {
        'if-none-match': etag,
        ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}),
      });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers['content-encoding']).toBeUndefined();
      expect(again.headers.etag).toBe(etag);
      expect(again.headers.vary).toMatch(/accept-encoding/i);
      expect(again.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    }
  });

  it('sends the script again for another ETag', async () => {
    const response = await rawGetAt(TRACKER_PATH, {
      'if-none-match': '"0000000000000000"',
      'accept-encoding': 'gzip',
    });
    expect(response.status).toBe(200);
    expect(decoded(response)).toBe(TRACKER_SCRIPT);
  });
});
