import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import { signIn } from '../helpers/console.ts';
import { type LinkedPage, publishLinkedPage } from '../helpers/pages.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

/**
 * Tab-nabbing (issue 36). Tenant B, signed in to the console, opens tenant A's page in the same tab.
 * A's script opens the console in a popup (Chromium copies the tab's session storage into a popup,
 * so it would be signed in), waits, then sends that popup to a page of A's that could ask for the
 * key again ("your session expired"). The console answers `Cross-Origin-Opener-Policy: same-origin`
 * and a page's popups stay in its sandbox, so the console never shows, signed in, in a window the
 * page holds: the page's handle to a console it opened is closed, and its navigation goes nowhere.
 */
const NABBED = '/session-expired';

/** Opens the console in a popup at once, and keeps `nab()` to send that popup to A's fake page. */
function nabScript(consoleUrl: string, nabUrl: string): string {
  return `<script>
window.consolePopup = window.open(${JSON.stringify(consoleUrl)}, 'console');
window.nab = () => {
  try { window.consolePopup.location.href = ${JSON.stringify(nabUrl)}; return 'sent'; } catch (error) { return 'blocked: ' + error.name; }
};
</script>`;
}

/** What the popup shows: where it is, what its session storage holds (or why not), and whether it has an opener. */
async function popupState(popup: Page): Promise<{ url: string; storage: string; hasOpener: boolean }> {
  return {
    url: popup.url(),
    storage: (await popup.evaluate(
      "(() => { try { return JSON.stringify(Object.entries(sessionStorage)); } catch (error) { return 'blocked: ' + error.name; } })()",
    )) as string,
    hasOpener: (await popup.evaluate('window.opener !== null')) as boolean,
  };
}

describe.skipIf(!hasChromium)("a tenant's page cannot nab the console's tab, in Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  for (const { layout, pagesUrl, consoleLoads } of [
    // The popup stays in the page's sandbox, where the console, isolated by its opener policy, never loads.
    { layout: 'on the pages origin every tenant shares', pagesUrl: undefined, consoleLoads: false },
    // No sandbox there: the console loads (Chromium copied the tab's session storage, the visitor's
    // own), but in a browsing context group of its own, out of the page's reach.
    { layout: 'on an origin per tenant', pagesUrl: 'http://{tenant}.localhost:{port}', consoleLoads: true },
  ]) {
    describe(layout, () => {
      let server: TestServer;
      let bKey: string;
      let aPage: LinkedPage;
      let aOrigin: string;
      beforeAll(async () => {
        server = await startServer({ pagesUrl });
        const a = await server.newTenant();
        const b = await server.newTenant();
        bKey = b.apiKey as string;
        const { slug } = (await a.get('/v0/tenant')).body;
        const port = new URL(server.pagesUrl).port;
        aOrigin = pagesUrl ? `http://${slug}.localhost:${port}` : server.pagesUrl;
        aPage = await publishLinkedPage(server, a, {
          path: '/innocent',
          personalize: false,
          page: {
            scripts: [{ name: 'nab', content: nabScript(`${server.url}/console`, `${aOrigin}${NABBED}`) }],
          },
        });
      });
      afterAll(() => server?.close());

      it('the console it opens in a popup has no opener, and the page can neither reach it nor navigate it', async () => {
        const context = await browser.newContext();
        const tab = await context.newPage();
        await tab.goto(`${server.url}/console`);
        await signIn(tab, bKey);
        const popupOpened = context.waitForEvent('page');
        await tab.goto(`${aOrigin}${aPage.url}`);
        const popup = await popupOpened;
        await popup.waitForLoadState('load').catch(() => undefined);
        if (consoleLoads) await popup.getByRole('navigation', { name: 'Console' }).waitFor();

        const opened = await popupState(popup);
        expect(opened.url.startsWith(`${server.url}/console`)).toBe(consoleLoads);
        if (!consoleLoads) expect(opened.storage).toMatch(/^blocked: SecurityError/);
        expect(opened.hasOpener).toBe(false);
        // The page's handle is to a window closed to it: it reads and moves nothing through it.
        expect(await tab.evaluate('window.consolePopup.closed')).toBe(true);
        await tab.evaluate('window.nab()');
        await popup.waitForTimeout(1500);
        expect((await popupState(popup)).url).toBe(opened.url);
        await context.close();
      });
    });
  }
});

describe('the headers that close it', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  it('the console isolates its browsing context group; a page on the shared origin keeps its popups sandboxed', async () => {
    for (const path of ['/console', '/console/pages/page_unknown']) {
      const answer = await server.anonymous().get(path);
      expect(answer.headers.get('cross-origin-opener-policy'), path).toBe('same-origin');
    }
    const tenant = await server.newTenant();
    const page = await publishLinkedPage(server, tenant, { path: '/plain', personalize: false });
    const answer = await fetch(`${server.pagesUrl}${page.url}`);
    await answer.arrayBuffer();
    const sandbox = answer.headers.get('content-security-policy') ?? '';
    expect(sandbox.split(' ')).toContain('allow-popups');
    expect(sandbox).not.toContain('allow-popups-to-escape-sandbox');
  });
});
