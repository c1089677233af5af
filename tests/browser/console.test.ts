import os from 'node:os';
import Fastify from 'fastify';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from '../../src/http/console.ts';
import { registerErrorHandling } from '../../src/http/errors.ts';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import {
  checkView,
  expectNoWriteControl,
  goTo,
  openConsole,
  settle,
  signIn,
  VIEWPORTS,
  type ViewportName,
} from '../helpers/console.ts';
import { type LinkedPage, publishLinkedPage } from '../helpers/pages.ts';
import { type Client, ok, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: Client;
let browser: Browser;
/** A published page with a generated, published audience and a link, made through the API. */
let sample: LinkedPage;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  await ok(api.post('/v0/persons', { name: 'Jane Doe', email: 'jane@globex.example' }), 201);
  const person = await ok(api.post('/v0/persons', { name: 'Sam Lee', email: 'sam@initech.example' }), 201);
  sample = await publishLinkedPage(server, api, {
    path: '/sample/sam',
    audience: { personId: person.personId },
  });
  if (hasChromium) browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('serving /console', () => {
  it('answers the app with a strict CSP, no caching of index.html and a year of caching for hashed assets', async () => {
    const index = await server.anonymous().get('/console');
    expect(index.status).toBe(200);
    const policy = index.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toMatch(/style-src 'self' 'nonce-[A-Za-z0-9+/=]{24}'/);
    expect(policy).not.toContain('unsafe-inline');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(index.body).toContain(`content="${nonce}"`);
    expect((await server.anonymous().get('/console')).headers.get('content-security-policy')).not.toBe(
      policy,
    );

    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(index.body)?.[1] ?? '';
    const asset = await server.anonymous().get(script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-security-policy')).toContain("script-src 'self'");

    const route = await server.anonymous().get('/console/pages/page_unknown');
    expect(route.status).toBe(200);
    expect(route.body).toContain('<div id="app">');
  });

  it('answers a missing asset with a 404 problem, and stays out of the OpenAPI document', async () => {
    const missing = await server.anonymous().get('/console/assets/nothing.js');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
    const document = await server.anonymous().get('/v0/openapi.json');
    expect(Object.keys(document.body.paths).filter((path) => path.startsWith('/console'))).toEqual([]);
  });

  it('answers a clear 503 problem while the console is not built', async () => {
    const app = Fastify();
    registerErrorHandling(app, () => false);
    await app.register(consoleRoutes, { prefix: '/console', dist: `${os.tmpdir()}/tailor-no-console/` });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const answer = await fetch(`${url}/console/pages`);
      expect(answer.status).toBe(503);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(((await answer.json()) as { detail: string }).detail).toContain('npm install');
    } finally {
      await app.close();
    }
  });
});

describe.skipIf(!hasChromium)('the console in Chromium', () => {
  it('tells a wrong key so, and keeps the key in the tab only', async () => {
    const { page, cspViolations } = await openConsole(browser, server.url);
    await page.getByLabel('API key').fill('tlr_not-a-real-key-not-a-real-key-not-a-real');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('This key was not accepted');
    await checkView(page, 'sign-in-refused', 'desktop');

    await signIn(page, api.apiKey as string);
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.evaluate('Object.keys(localStorage)')).toEqual([]);
    expect(page.url()).not.toContain('tlr_');
    await page.reload();
    await page.getByRole('navigation', { name: 'Console' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('status').filter({ hasText: 'You are signed out' }).waitFor();
    expect(await page.evaluate('Object.keys(sessionStorage)')).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('takes a page from creation to a visited public page', async () => {
    const worker = server.worker();
    try {
      const { page, cspViolations } = await openConsole(browser, server.url);
      await signIn(page, api.apiKey as string);

      await page.getByRole('link', { name: 'New page' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Autumn launch');
      await page
        .getByLabel('What the page is about')
        .fill('Tailor helps retailers grow. It personalizes every page.');
      await page.getByRole('button', { name: 'Create the page' }).click();
      await page.getByRole('heading', { name: 'Autumn launch' }).waitFor();
      await page.getByRole('button', { name: 'Publish' }).click();
      await page.getByText('published', { exact: true }).waitFor();

      await page.getByRole('link', { name: 'New audience' }).click();
      await page.getByLabel('Find the person').fill('jane doe');
      await page.getByLabel(/Jane Doe/).check();
      await page.getByRole('button', { name: 'Create and generate' }).click();
      // The version is queued, then reaches draft once a worker runs, without a reload.
      const progress = page.getByRole('list', { name: 'Generation progress' });
      await progress.locator('[aria-current="step"]', { hasText: 'queued' }).waitFor();
      await checkView(page, 'audience-generating', 'desktop');
      worker.start();
      await page.getByRole('button', { name: 'Publish version 1' }).waitFor({ timeout: 20_000 });
      expect(await progress.count()).toBe(0);

      await page.getByRole('link', { name: 'Preview v1' }).click();
      const frames = page.locator('iframe');
      await expect.poll(() => frames.count()).toBe(2);
      const version = page.frameLocator('iframe').first();
      await version.locator('h1').waitFor();
      expect(await frames.first().getAttribute('sandbox')).toBe('');
      await page.goBack();

      await page.getByRole('button', { name: 'Publish version 1' }).click();
      await page.getByText('version 1', { exact: true }).waitFor();
      await page.getByLabel('Link path').fill('/autumn/jane');
      await page.getByRole('button', { name: 'Create link' }).click();
      const address = page.getByLabel('Public address of /autumn/jane');
      await address.waitFor();
      const publicUrl = await address.inputValue();
      expect(publicUrl).toMatch(/\/p\/[a-z0-9-]+\/autumn\/jane$/);

      const visitor = await browser.newPage();
      const visit = await visitor.goto(publicUrl);
      expect(visit?.status()).toBe(200);
      await visitor.getByRole('heading', { level: 1 }).waitFor();
      await visitor.close();
      expect(cspViolations).toEqual([]);
      await page.close();
    } finally {
      await worker.stop();
    }
  }, 60_000);

  it('shows each field error beside its field in words, and the outcome beside the button', async () => {
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await page.getByRole('link', { name: 'New page' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Unsafe link');
    await page.getByLabel('What the page is about').fill('A page whose button runs script.');
    await page.getByLabel('URL').fill('javascript:alert(1)');
    await page.getByRole('button', { name: 'Create the page' }).click();
    const outcome = page.locator('button:text-is("Create the page") + [role="status"]');
    await expect.poll(() => outcome.textContent()).toBe('Not saved. Correct the field marked.');
    const url = page.getByLabel('URL');
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await url.getAttribute('aria-describedby')) ?? '';
    const message = await page.locator(`[id="${describedBy.split(' ').pop()}"]`).textContent();
    expect(message).toMatch(/^must be a link such as https:\/\/acme\.com\/demo: /);
    await checkView(page, 'page-new-invalid', 'desktop');
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('can be used with the keyboard alone: sign in, skip to the content, open a page', async () => {
    const { page } = await openConsole(browser, server.url);
    await page.keyboard.press('Tab');
    await page.keyboard.type(api.apiKey as string);
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Console' }).waitFor();
    expect(await page.evaluate('document.activeElement.id')).toBe('main');
    await page.reload();
    await page.getByRole('link', { name: 'Spring launch' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    for (let tabs = 0; tabs < 20; tabs++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate('document.activeElement.textContent')) === 'Spring launch') break;
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Spring launch', level: 1 }).waitFor();
    expect(await page.evaluate('document.activeElement.id')).toBe('main');
    await page.close();
  });

  it('shows a read-only key no control that writes', async () => {
    const readOnly = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, readOnly.apiKey);
    await page.getByText('read-only key').waitFor();
    const views = [
      '/pages',
      `/pages/${sample.pageId}`,
      `/pages/${sample.pageId}/audiences/${sample.audienceId}`,
      '/page-links',
    ];
    for (const view of views) {
      await page.goto(`${server.url}/console${view}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await settle(page);
      await expectNoWriteControl(page, view);
    }
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    it(`shows every view at ${viewport} width without sideways scroll or a serious axe-core violation`, async () => {
      const { page, cspViolations } = await openConsole(browser, server.url, viewport);
      await checkView(page, 'sign-in', viewport);
      await signIn(page, api.apiKey as string);
      const audience = `/pages/${sample.pageId}/audiences/${sample.audienceId}`;
      const versions = await ok(
        api.get(`/v0/pages/${sample.pageId}/audiences/${sample.audienceId}/versions`),
      );
      const views: [string, string][] = [
        ['pages', '/pages'],
        ['page-new', '/pages/new'],
        ['page', `/pages/${sample.pageId}`],
        ['page-edit', `/pages/${sample.pageId}/edit`],
        ['audience-new', `/pages/${sample.pageId}/audiences/new`],
        ['audience', audience],
        ['preview', `${audience}/versions/${versions.items[0].versionId}`],
        ['page-links', '/page-links'],
      ];
      for (const [name, view] of views) {
        await goTo(page, view);
        if (name === 'preview') {
          for (const frame of [0, 1]) await page.frameLocator('iframe').nth(frame).locator('h1').waitFor();
        }
        await checkView(page, name, viewport);
      }
      expect(cspViolations).toEqual([]);
      await page.close();
    }, 90_000);
  }
});
