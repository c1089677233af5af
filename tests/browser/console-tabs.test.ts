import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import { checkView, signIn, VIEWPORTS, type ViewportName } from '../helpers/console.ts';
import { publishLinkedPage } from '../helpers/pages.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

/**
 * The console's tabs (console/src/session.tsx): a new tab asks an open, signed-in tab for the key
 * over a BroadcastChannel, and signing out in one tab signs out every tab. Two tabs of one browser
 * context, as a person opening a console link in a new tab has them.
 */

let server: TestServer;
let api: Client;
let browser: Browser;
let deepLink: string;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  const linked = await publishLinkedPage(server, api, { personalize: false, path: '/tabs' });
  deepLink = `/console/pages/${linked.pageId}/audiences/${linked.audienceId}`;
  if (hasChromium) browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Where a tab keeps the key, as the page itself sees its storage: sessionStorage alone. */
async function storage(page: Page) {
  return page.evaluate(`({
    session: sessionStorage.getItem('tailor.apiKey'),
    local: localStorage.length,
    cookie: document.cookie,
    url: location.href,
  })`) as Promise<{ session: string | null; local: number; cookie: string; url: string }>;
}

async function newTab(context: BrowserContext, address: string, viewport: ViewportName = 'desktop') {
  const page = await context.newPage();
  await page.setViewportSize(VIEWPORTS[viewport]);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (/content security policy/i.test(message.text())) errors.push(message.text());
  });
  await page.goto(`${server.url}${address}`);
  return { page, errors };
}

describe.skipIf(!hasChromium)('the console in two tabs', () => {
  it('signs a new tab in from an open one, keeps the key in each tab alone, and signs every tab out at once', async () => {
    const context = await browser.newContext();
    const first = await newTab(context, '/console');
    await signIn(first.page, api.apiKey as string);

    // A console link opened in a new tab: signed in without typing, on the view it names.
    const second = await newTab(context, deepLink);
    await second.page.getByRole('navigation', { name: 'Console' }).waitFor({ timeout: 5_000 });
    await second.page.getByRole('heading', { name: 'Versions', level: 2 }).waitFor();
    expect(new URL(second.page.url()).pathname).toBe(deepLink);
    expect(await second.page.getByLabel('API key').count()).toBe(0);
    for (const { page } of [first, second]) {
      const kept = await storage(page);
      expect(kept.session).toBe(api.apiKey);
      expect(kept.local).toBe(0);
      expect(kept.cookie).toBe('');
      expect(kept.url).not.toContain(api.apiKey as string);
    }

    // Signing out in one tab signs out both.
    await second.page.getByRole('button', { name: 'Sign out' }).click();
    for (const { page } of [first, second]) {
      await page.getByLabel('API key').waitFor({ timeout: 5_000 });
      expect((await storage(page)).session).toBeNull();
    }
    await first.page.getByText('You signed out in another tab of the console').waitFor();
    await second.page.getByText('every other tab of the console').waitFor();

    // With no tab signed in, a new tab asks in vain and shows the form.
    const third = await newTab(context, deepLink);
    await third.page.getByLabel('API key').waitFor({ timeout: 2_000 });
    expect([...first.errors, ...second.errors, ...third.errors]).toEqual([]);
    await context.close();
  }, 60_000);

  it('shows the sign-in form promptly to a tab with no signed-in peer', async () => {
    const context = await browser.newContext();
    const started = Date.now();
    const { page } = await newTab(context, deepLink);
    await page.getByLabel('API key').waitFor({ timeout: 3_000 });
    expect(Date.now() - started).toBeLessThan(3_000);
    // Signed in there, it answers the next tab, which was not signed in by hand.
    await signIn(page, api.apiKey as string);
    expect(new URL(page.url()).pathname).toBe(deepLink);
    const next = await newTab(context, '/console/leads');
    await next.page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor({ timeout: 5_000 });
    await context.close();
  }, 60_000);

  it('gives the key to tabs of its own browser context only', async () => {
    const mine = await browser.newContext();
    const { page } = await newTab(mine, '/console');
    await signIn(page, api.apiKey as string);
    const stranger = await browser.newContext();
    const other = await newTab(stranger, deepLink);
    await other.page.getByLabel('API key').waitFor({ timeout: 3_000 });
    expect((await storage(other.page)).session).toBeNull();
    await mine.close();
    await stranger.close();
  }, 60_000);

  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    it(`shows the tab signed out from another at ${viewport} width without a serious axe-core violation`, async () => {
      const context = await browser.newContext();
      const first = await newTab(context, '/console', viewport);
      await signIn(first.page, api.apiKey as string);
      const second = await newTab(context, '/console/pages', viewport);
      await second.page.getByRole('heading', { name: 'Pages', level: 1 }).waitFor({ timeout: 5_000 });
      await second.page.getByRole('button', { name: 'Sign out' }).click();
      await first.page.getByText('You signed out in another tab of the console').waitFor();
      await checkView(first.page, 'signed-out-elsewhere', viewport);
      await context.close();
    }, 60_000);
  }
});
