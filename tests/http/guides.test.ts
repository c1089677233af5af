import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/shared/html.ts';
import { rawGet } from '../helpers/raw-get.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

// The repository's docs, read-only on the API origin (docs/console.md#guides): each docs/*.md by
// its name, with no script, and nothing else of the file system.

const DOCS = path.resolve(import.meta.dirname, '../../docs');
const GUIDES = fs
  .readdirSync(DOCS)
  .filter((file) => file.endsWith('.md'))
  .map((file) => file.slice(0, -3));

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const get = (address: string) => rawGet(`${server.url}${address}`);

describe('GET /guides/{name}', () => {
  it.each(GUIDES)('serves docs/%s.md as HTML, with a policy that lets no script run', async (name) => {
    const answer = await get(`/guides/${name}`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    const policy = String(answer.headers['content-security-policy']);
    expect(policy).toMatch(/^default-src 'none'; /);
    expect(policy).not.toMatch(/script-src|unsafe/);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    const html = answer.body.toString('utf8');
    expect(html).not.toMatch(/<script|<iframe|\son[a-z]+=/i);
    const title = /^# +(.+)$/m.exec(fs.readFileSync(path.join(DOCS, `${name}.md`), 'utf8'))?.[1] as string;
    expect(html).toContain(`<title>${escapeHtml(title)} · Tailor guides</title>`);
    expect(html).toMatch(/<h1 id="[a-z0-9-]+">/);
  });

  it('gives headings the anchors GitHub gives them, and links other guides by their address here', async () => {
    const html = (await get('/guides/console')).body.toString('utf8');
    expect(html).toContain('<h2 id="signing-in">Signing in</h2>');
    expect(html).toContain('<h2 id="editing-a-draft">Editing a draft</h2>');
    expect(html).toContain('href="/guides/personalization#editing-a-version"');
    expect(html).toContain('<table>');
    // A link to a file that is not a guide (the console's README) is shown as its text.
    expect(html).not.toContain('href="../console/README.md"');
    expect(html).toContain('console/README.md');
  });

  it('shows markup written in a guide as text', async () => {
    const html = (await get('/guides/public-pages')).body.toString('utf8');
    expect(html).toContain('&lt;script src=&quot;/v0/public/tracker.js');
  });

  it('lists every guide at /guides, by its title', async () => {
    const answer = await get('/guides');
    expect(answer.status).toBe(200);
    const html = answer.body.toString('utf8');
    for (const name of GUIDES) expect(html).toContain(`<a href="/guides/${name}">`);
    expect(html).toContain('>The console</a>');
  });

  it.each([
    'nope',
    'console.md',
    'Console',
    '..%2Fpackage.json',
    '..%2F..%2Fetc%2Fpasswd',
    '%2e%2e%2fREADME',
    '..%5cpackage.json',
    'console%00',
    '.',
    '__proto__',
    'constructor',
  ])('answers 404 for %s, which names no guide', async (name) => {
    const answer = await get(`/guides/${name}`);
    expect(answer.status).toBe(404);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(answer.body.toString('utf8')).code).toBe('not_found');
  });

  it('serves no file for a path that climbs out of the docs, as sent', async () => {
    for (const address of [
      '/guides/../package.json',
      '/guides/../../etc/passwd',
      '/guides/a/../../README.md',
    ]) {
      const answer = await get(address);
      expect(answer.status, address).toBe(404);
      expect(answer.body.toString('utf8'), address).not.toMatch(/"name": "tailor"|root:|# Tailor/);
    }
    // The router reads `/guides/%2e%2e` as `/`, the API origin's root, which sends to the console.
    const climbed = await get('/guides/%2e%2e');
    expect([climbed.status, climbed.headers.location]).toEqual([302, '/console']);
  });

  it('is not served on the pages origin', async () => {
    const answer = await rawGet(`${server.pagesUrl}/guides/console`);
    expect(answer.status).toBe(404);
  });
});
