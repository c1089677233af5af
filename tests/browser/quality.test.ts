import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import { type Fixture, makeFixtures } from '../helpers/quality-fixtures.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

/** Where the screenshots go, to be looked at. */
const SHOTS = '/tmp/tailor-quality';
const VIEWPORTS = {
  desktop: { width: 1280, height: 900 },
  phone: { width: 390, height: 844 },
};

let server: TestServer;
let browser: Browser;
let fixtures: Fixture[];

beforeAll(async () => {
  if (!hasChromium) return;
  server = await startServer();
  ({ fixtures } = await makeFixtures(server));
  browser = await launchChromium();
  fs.mkdirSync(SHOTS, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('generated pages in Chromium', () => {
  it.skipIf(!hasChromium)(
    'three of them, at desktop and phone width: no sideways scroll, every image shown; screenshots kept',
    async () => {
      const chosen = [
        fixtures.find((f) => f.pageType === 'inbound' && f.shape === 'person at an account'),
        fixtures.find((f) => f.pageType === 'call_followup' && f.shape === 'person at an account'),
        fixtures.find((f) => f.pageType === 'sales_deck' && f.shape === 'account only'),
      ].filter((fixture): fixture is Fixture => fixture !== undefined);
      expect(chosen).toHaveLength(3);
      for (const fixture of chosen) {
        for (const [name, viewport] of Object.entries(VIEWPORTS)) {
          const page = await browser.newPage({ viewport });
          const response = await page.goto(`${server.pagesUrl}${fixture.url}`, { waitUntil: 'load' });
          expect(response?.status()).toBe(200);
          expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
          expect(
            await page.evaluate(`[...document.images].every((img) => img.complete && img.naturalWidth > 0)`),
          ).toBe(true);
          await page.screenshot({
            path: `${SHOTS}/${fixture.brand.brandId}-${fixture.pageType}-${name}.png`,
            fullPage: true,
          });
          await page.close();
        }
      }
    },
  );
});
