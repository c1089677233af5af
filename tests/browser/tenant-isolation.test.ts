import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import { signIn } from '../helpers/console.ts';
import { type LinkedPage, publishLinkedPage } from '../helpers/pages.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

/**
 * Tenant A publishes a page whose script tries everything a script could to reach tenant B or the
 * console: read the origin's cookies and storage, fetch B's page and the API, frame B's page and
 * the console, open the console in a window and read it, and plant a visitor id for B's pages
 * (which would choose the holdout arm of B's visitors). Tenant B, signed in to the console, opens
 * A's page in the same tab. Nothing of B's or of the console may reach A's script.
 */
const PLANTED = 'AAAAAAAAAAAAAAAAAAAAAA';
/** True once the spy has written down what it found. */
const FOUND = 'document.documentElement.dataset.found !== undefined';

function spyScript(target: { apiUrl: string; otherPageUrl: string; otherSlug: string }): string {
  return `<script>
(async () => {
  const found = {};
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const attempt = async (name, take) => {
    try { found[name] = String(await take()); } catch (error) { found[name] = 'blocked: ' + error.name; }
  };
  const framed = (src) => new Promise((resolve) => {
    const frame = document.createElement('iframe');
    frame.src = src;
    frame.onload = () => {
      try { resolve(frame.contentDocument.documentElement.outerHTML); } catch (error) { resolve('blocked: ' + error.name); }
    };
    document.body.append(frame);
    setTimeout(() => resolve('blocked: no load'), 4000);
  });
  await attempt('cookie', () => document.cookie);
  await attempt('sessionStorage', () => JSON.stringify(Object.entries(sessionStorage)));
  await attempt('localStorage', () => JSON.stringify(Object.entries(localStorage)));
  await attempt('plant', () => {
    document.cookie = 'tailor_vid=${PLANTED}; path=/p/${target.otherSlug}; max-age=86400';
    document.cookie = 'tailor_vid=${PLANTED}; domain=localhost; path=/; max-age=86400';
    return document.cookie;
  });
  await attempt('otherPage', async () => (await fetch(${JSON.stringify(target.otherPageUrl)}, { credentials: 'include' })).text());
  await attempt('apiTenant', async () => (await fetch(${JSON.stringify(`${target.apiUrl}/v0/tenant`)}, { credentials: 'include' })).text());
  await attempt('console', async () => (await fetch(${JSON.stringify(`${target.apiUrl}/console`)}, { credentials: 'include' })).text());
  await attempt('otherFrame', () => framed(${JSON.stringify(target.otherPageUrl)}));
  await attempt('consoleFrame', () => framed(${JSON.stringify(`${target.apiUrl}/console`)}));
  await attempt('consoleWindow', async () => {
    const opened = window.open(${JSON.stringify(`${target.apiUrl}/console`)});
    await sleep(1500);
    try { return JSON.stringify(Object.entries(opened.sessionStorage)) + opened.document.body.innerHTML; }
    finally { opened?.close(); }
  });
  document.documentElement.dataset.found = JSON.stringify(found);
})();
</script>`;
}

interface Tenants {
  a: Client;
  b: Client;
  bKey: string;
  bPage: LinkedPage;
  aPage: LinkedPage;
}

/** B's page with a holdout (so it keeps a visitor id), then A's page that spies on B. */
async function setUp(server: TestServer, pageUrl: (page: LinkedPage) => string): Promise<Tenants> {
  const a = await server.newTenant();
  const b = await server.newTenant();
  const bPage = await publishLinkedPage(server, b, { path: '/offer', audience: { holdoutPercent: 50 } });
  const aPage = await publishLinkedPage(server, a, {
    path: '/innocent',
    personalize: false,
    page: {
      scripts: [
        {
          name: 'spy',
          content: spyScript({ apiUrl: server.url, otherPageUrl: pageUrl(bPage), otherSlug: bPage.slug }),
        },
      ],
    },
  });
  return { a, b, bKey: b.apiKey as string, bPage, aPage };
}

/** B signs in to the console, then opens A's page in the same tab: what did A's script find? */
async function spyOnSignedInTenant(
  context: BrowserContext,
  server: TestServer,
  tenants: Tenants,
  aPageUrl: string,
): Promise<Record<string, string>> {
  const tab = await context.newPage();
  await tab.goto(`${server.url}/console`);
  await signIn(tab, tenants.bKey);
  expect(await tab.evaluate('JSON.stringify(Object.entries(sessionStorage))')).toContain(tenants.bKey);
  await tab.goto(aPageUrl);
  await tab.waitForFunction(FOUND, undefined, { timeout: 20_000 });
  const found = JSON.parse((await tab.evaluate('document.documentElement.dataset.found')) as string);
  await tab.close();
  return found;
}

/** Nothing of tenant B's, nor of the console, in what A's script found. */
function expectNothingOfB(found: Record<string, string>, tenants: Tenants) {
  const everything = JSON.stringify(found);
  expect(everything).not.toContain(tenants.bKey);
  expect(everything).not.toContain(tenants.b.tenantId);
  expect(everything).not.toContain(tenants.bKey.slice(0, 12));
  for (const name of ['otherPage', 'otherFrame', 'console', 'consoleFrame', 'consoleWindow', 'apiTenant']) {
    expect(found[name], name).toMatch(/^blocked: |^\{"type":"urn:tailor:error:missing_api_key"/);
    expect(found[name], name).not.toContain('data-tailor-token');
  }
}

describe.skipIf(!hasChromium)("a tenant's page scripts in Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  describe('on the pages origin every tenant shares (the default)', () => {
    let server: TestServer;
    let tenants: Tenants;
    beforeAll(async () => {
      server = await startServer();
      tenants = await setUp(server, (page) => `${server.pagesUrl}${page.url}`);
    });
    afterAll(() => server?.close());

    it("read nothing of another tenant's or of the console, and plant nothing for it", async () => {
      const context = await browser.newContext();
      // B's visitor has been to B's page before: the browser holds B's visitor id.
      const bUrl = `${server.pagesUrl}${tenants.bPage.url}`;
      const first = await context.newPage();
      await first.goto(bUrl);
      const [before] = (await context.cookies(bUrl)).filter((cookie) => cookie.name === 'tailor_vid');
      expect(before?.httpOnly).toBe(true);
      await first.close();

      const found = await spyOnSignedInTenant(
        context,
        server,
        tenants,
        `${server.pagesUrl}${tenants.aPage.url}`,
      );
      expectNothingOfB(found, tenants);
      // The page's scripts run in an opaque origin: no cookie, no storage, nothing to plant with.
      for (const name of ['cookie', 'sessionStorage', 'localStorage', 'plant']) {
        expect(found[name], name).toMatch(/^blocked: SecurityError/);
      }
      const after = (await context.cookies(bUrl)).filter((cookie) => cookie.name === 'tailor_vid');
      expect(after.map((cookie) => cookie.value)).toEqual([before?.value]);
      await context.close();
    });

    it('still runs, reports the visit and submits its form from the sandbox', async () => {
      const context = await browser.newContext();
      const tab = await context.newPage();
      await tab.goto(`${server.pagesUrl}${tenants.aPage.url}`);
      await tab.waitForFunction(FOUND);
      await tab.getByLabel('Work email').fill('ada@analytical.example');
      await tab.getByRole('button', { name: 'Send' }).click();
      await tab.locator('[data-tailor-form-thanks]').waitFor({ state: 'visible' });
      await tab.close({ runBeforeUnload: true });
      await expect
        .poll(
          async () =>
            (await tenants.a.get(`/v0/pages/${tenants.aPage.pageId}/analytics/audiences`)).body.items[0]
              .totalSessions,
          {
            timeout: 15_000,
          },
        )
        .toBeGreaterThan(0);
      await context.close();
    });
  });

  describe('on an origin per tenant ({tenant} in TAILOR_PAGES_URL)', () => {
    let server: TestServer;
    let tenants: Tenants;
    const originOf = (slug: string) => `http://${slug}.localhost:${new URL(server.pagesUrl).port}`;
    beforeAll(async () => {
      server = await startServer({ pagesUrl: 'http://{tenant}.localhost:{port}' });
      tenants = await setUp(server, (page) => `${originOf(page.slug)}${page.url}`);
    });
    afterAll(() => server?.close());

    it("read nothing of another tenant's or of the console, and plant nothing for it", async () => {
      const context = await browser.newContext();
      const bUrl = `${originOf(tenants.bPage.slug)}${tenants.bPage.url}`;
      const first = await context.newPage();
      await first.goto(bUrl);
      const [before] = (await context.cookies(bUrl)).filter((cookie) => cookie.name === 'tailor_vid');
      expect(before?.httpOnly).toBe(true);
      await first.close();

      const found = await spyOnSignedInTenant(
        context,
        server,
        tenants,
        `${originOf(tenants.aPage.slug)}${tenants.aPage.url}`,
      );
      expectNothingOfB(found, tenants);
      // Its own origin's storage is A's alone: the console's key is on another origin.
      expect(found.sessionStorage).not.toContain('tlr_');
      const after = (await context.cookies(bUrl)).filter((cookie) => cookie.name === 'tailor_vid');
      expect(after.map((cookie) => cookie.value)).toEqual([before?.value]);
      await context.close();
    });
  });

  describe('on origins per tenant over plain http, under one parent domain (issue 36)', () => {
    // `{tenant}.pages.localhost`: a page can set a cookie for `pages.localhost`, which the browser
    // then sends to every tenant's host (`localhost` alone is a top-level name: no cookie for it).
    let server: TestServer;
    let aPage: LinkedPage;
    let bPage: LinkedPage;
    const originOf = (slug: string) => `http://${slug}.pages.localhost:${new URL(server.pagesUrl).port}`;
    const TOSSED = `tailor_vid=${PLANTED}; domain=pages.localhost; path=/; max-age=86400`;
    beforeAll(async () => {
      server = await startServer({ pagesUrl: 'http://{tenant}.pages.localhost:{port}' });
      const a = await server.newTenant();
      const b = await server.newTenant();
      bPage = await publishLinkedPage(server, b, { path: '/offer', audience: { holdoutPercent: 50 } });
      aPage = await publishLinkedPage(server, a, {
        path: '/toss',
        personalize: false,
        page: {
          scripts: [
            {
              name: 'toss',
              content: `<script>document.cookie = ${JSON.stringify(TOSSED)}; document.documentElement.dataset.found = '{}';</script>`,
            },
          ],
        },
      });
    });
    afterAll(() => server?.close());

    /** B's page in a tab of `context`: the visitor id its answer keeps, and whether it is B's alone. */
    async function visitB(context: BrowserContext): Promise<string | undefined> {
      const tab = await context.newPage();
      const answer = await tab.goto(`${originOf(bPage.slug)}${bPage.url}`);
      const kept = (await answer?.headerValue('set-cookie'))?.match(/^tailor_vid=([^;.]+)/)?.[1];
      await tab.close();
      return kept;
    }

    it("tosses a visitor id that B's pages do not take: B mints its own and keeps it", async () => {
      const context = await browser.newContext();
      const tab = await context.newPage();
      await tab.goto(`${originOf(aPage.slug)}${aPage.url}`);
      await tab.waitForFunction(FOUND);
      await tab.close();
      // The browser took A's cookie for the parent domain, and sends it to B's host.
      const bUrl = `${originOf(bPage.slug)}${bPage.url}`;
      expect((await context.cookies(bUrl)).map((cookie) => cookie.value)).toEqual([PLANTED]);

      const minted = await visitB(context);
      expect(minted).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(minted).not.toBe(PLANTED);
      // The visitor's own id now comes with the tossed one, which is never taken: the arm holds.
      expect(await visitB(context)).toBe(minted);
      await context.close();
    });
  });
});
