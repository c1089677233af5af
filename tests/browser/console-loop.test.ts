import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import { openConsole, settle, signIn } from '../helpers/console.ts';
import { SAMPLE_PAGE } from '../helpers/pages.ts';
import { type Client, ok, startServer, type TestServer } from '../helpers/server.ts';

/**
 * The marketer's whole loop through the console (issue 22): knowledge with a bolded entry, an audience
 * with guidance, its draft edited beside the preview and published from there, the live page showing
 * the edit, a visitor's form sent from it, and the lead found in Leads with its person.
 */

const ENTRY =
  'Retail teams launch **personalized pages** in minutes, each written for the company reading it.';
const EDITED = 'Northwind launches **personalized pages** in a single afternoon, each written for its buyer.';

let server: TestServer;
let api: Client;
let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  server = await startServer();
  api = await server.newTenant();
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe.skipIf(!hasChromium)("the marketer's loop in Chromium", () => {
  it('knowledge, an audience with guidance, its draft edited and published from the preview, the live page, a lead with its person', async () => {
    const worker = server.worker();
    worker.start();
    try {
      // Set-up that has screens of its own, tested elsewhere: the knowledge, the page, the person.
      const topic = await ok(api.post('/v0/topics', { title: 'Launch pages' }), 201);
      await ok(
        api.post(`/v0/topics/${topic.topicId}/entries`, { content: { type: 'markdown', content: ENTRY } }),
        201,
      );
      const { pageId } = await ok(api.post('/v0/pages', SAMPLE_PAGE), 201);
      await ok(api.post(`/v0/pages/${pageId}/publish`));
      await ok(api.post('/v0/persons', { name: 'Maya Chen', email: 'maya@northwind.example' }), 201);

      const { page, cspViolations } = await openConsole(browser, server.url);
      await signIn(page, api.apiKey as string);

      // An audience with guidance, and its draft.
      await page.getByRole('link', { name: 'Spring launch' }).click();
      await page.getByRole('link', { name: 'New audience' }).click();
      await page.getByLabel('Find the person').fill('maya');
      await page.getByLabel(/Maya Chen/).check();
      await page
        .getByLabel('What we know about them')
        .fill('Maya runs launches at Northwind and wants personalized pages live before the spring sale.');
      await page.getByRole('button', { name: 'Create and generate' }).click();
      await page.getByRole('button', { name: 'Publish version 1' }).waitFor({ timeout: 30_000 });
      await page.getByLabel('Link path').fill('/loop/maya');
      await page.getByRole('button', { name: 'Create link' }).click();
      await page.getByLabel('Public address of /loop/maya').waitFor();

      // The draft beside its preview: the bolded entry is there; one sentence of it is edited.
      await page.getByRole('link', { name: 'Preview v1' }).click();
      const preview = page.frameLocator('iframe').first();
      await preview.locator('strong', { hasText: 'personalized pages' }).waitFor();
      const bodies = page.getByLabel('Body', { exact: true });
      const values = await Promise.all(
        Array.from({ length: await bodies.count() }, (_, index) => bodies.nth(index).inputValue()),
      );
      const at = values.findIndex((value) => value.includes(ENTRY));
      expect(at, JSON.stringify(values)).toBeGreaterThanOrEqual(0);
      await bodies.nth(at).fill((values[at] ?? '').replace(ENTRY, EDITED));
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      await preview.getByText('in a single afternoon').waitFor();
      await page.locator('figcaption', { hasText: 'Edited' }).waitFor();

      // Published from there, and opened live: on the pages origin, with the edit.
      await page.getByRole('button', { name: 'Publish version 1' }).click();
      const published = page.getByRole('status').filter({ hasText: 'Version 1 is published' });
      await published.waitFor();
      const [live] = await Promise.all([
        page.waitForEvent('popup'),
        published.getByRole('link', { name: /Open live page/ }).click(),
      ]);
      await live.waitForLoadState();
      expect(live.url()).toMatch(new RegExp(`^${server.pagesUrl}/p/[a-z0-9-]+/loop/maya$`));
      await live.locator('strong', { hasText: 'personalized pages' }).waitFor();
      expect(await live.locator('main').textContent()).toContain(
        'Northwind launches personalized pages in a single afternoon, each written for its buyer.',
      );

      // A visitor sends the form with a free-mail address.
      await live.getByLabel('Name').fill('Maya Chen');
      await live.getByLabel('Work email').fill('maya.chen@gmail.com');
      await live.getByLabel('Message').fill('Can we go live before the spring sale?');
      await live.getByRole('button', { name: 'Send' }).click();
      await live.getByText('Thank you!').waitFor();
      await live.close();

      // The lead, in Leads: its page by name, enriched, its person (without a company) linked.
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Leads' }).click();
      await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
      const lead = page
        .locator('tbody tr')
        .filter({ has: page.getByRole('link', { name: 'maya.chen@gmail.com', exact: true }) });
      await lead.getByRole('link', { name: 'Spring launch' }).waitFor();
      const person = lead.getByRole('link', { name: 'Maya Chen' });
      await person.waitFor({ timeout: 15_000 });
      expect(await lead.textContent()).toContain('no company');
      await person.click();
      await page.getByRole('heading', { name: 'Maya Chen', level: 1 }).waitFor();
      await settle(page);
      expect(await page.locator('main').textContent()).toContain('maya.chen@gmail.com');
      expect(cspViolations).toEqual([]);
      await page.close();
    } finally {
      await worker.stop();
    }
  }, 120_000);
});
