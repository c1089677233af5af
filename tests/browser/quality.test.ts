import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import { type Draft, queueDemo } from '../helpers/copy-fixtures.ts';
import { type Fixture, makeFixtures } from '../helpers/quality-fixtures.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

/** Where the screenshots go, to be looked at. */
const SHOTS = '/tmp/tailor-quality';
/** Where the demo's drafts go (the copy-quality suite's, tests/quality/copy.test.ts). */
const DRAFT_SHOTS = '/tmp/tailor-shots/copy';
const VIEWPORTS = {
  desktop: { width: 1280, height: 900 },
  phone: { width: 390, height: 844 },
};

/** Three audiences of one page whose guidance differs, an outbound offer and a follow-up. */
const DEMO_SHOWN = [
  'demo /platform/globex',
  'demo /platform/store-managers',
  'demo /platform/planners',
  'demo /holiday/globex',
  'demo /follow-up/jane-cooper',
];

let server: TestServer;
let browser: Browser;
let fixtures: Fixture[];
let demo: Client;
let drafts: Draft[];

beforeAll(async () => {
  if (!hasChromium) return;
  server = await startServer();
  ({ fixtures } = await makeFixtures(server));
  demo = await server.newTenant();
  drafts = (await queueDemo(demo)).filter((draft) => DEMO_SHOWN.includes(draft.label));
  await server.worker().drain();
  browser = await launchChromium();
  for (const dir of [SHOTS, DRAFT_SHOTS]) fs.mkdirSync(dir, { recursive: true });
}, 180_000);
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

describe("the demo's drafts, previewed in Chromium", () => {
  it.skipIf(!hasChromium)(
    'show the hero and the sections of the draft at desktop and phone width, without sideways scroll; screenshots kept',
    async () => {
      expect(drafts).toHaveLength(DEMO_SHOWN.length);
      for (const draft of drafts) {
        const url = `/v0/pages/${draft.pageId}/audiences/${draft.audienceId}/versions`;
        const [latest] = (await demo.get(url)).body.items;
        for (const [name, viewport] of Object.entries(VIEWPORTS)) {
          const page = await browser.newPage({
            viewport,
            extraHTTPHeaders: { 'x-api-key': demo.apiKey as string },
          });
          const response = await page.goto(`${server.url}${url}/${latest.versionId}/preview`);
          expect(response?.status(), draft.label).toBe(200);
          expect(await page.locator('h1').textContent(), draft.label).toBe(latest.content.headline);
          const headings = await page.locator('main h2').allTextContents();
          for (const section of latest.content.sections)
            expect(headings, draft.label).toContain(section.heading);
          expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
          const file = draft.label.replace(/^demo \//, '').replaceAll('/', '-');
          await page.screenshot({ path: `${DRAFT_SHOTS}/${file}-${name}.png`, fullPage: true });
          await page.close();
        }
      }
    },
  );
});
