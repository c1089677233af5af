import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import { type Draft, queueDemo } from '../helpers/copy-fixtures.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

/**
 * The demo's drafts as a marketer previews them before sending, in Chromium: the hero and the
 * sections the API answers, readable at desktop and phone width. Screenshots are kept to be looked at.
 */

const SHOTS = '/tmp/tailor-shots/copy';
const VIEWPORTS = {
  desktop: { width: 1280, height: 900 },
  phone: { width: 390, height: 844 },
};
/** Three audiences of one page whose guidance differs, an outbound offer and a follow-up. */
const SHOWN = [
  'demo /platform/globex',
  'demo /platform/store-managers',
  'demo /platform/planners',
  'demo /holiday/globex',
  'demo /follow-up/jane-cooper',
];

let server: TestServer;
let client: Client;
let browser: Browser;
let drafts: Draft[];

beforeAll(async () => {
  if (!hasChromium) return;
  server = await startServer();
  client = await server.newTenant();
  drafts = (await queueDemo(client)).filter((draft) => SHOWN.includes(draft.label));
  await server.worker().drain();
  browser = await launchChromium();
  fs.mkdirSync(SHOTS, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("the demo's drafts in Chromium", () => {
  it.skipIf(!hasChromium)(
    'show the hero and the sections of the draft, without sideways scroll; screenshots kept',
    async () => {
      expect(drafts).toHaveLength(SHOWN.length);
      for (const draft of drafts) {
        const url = `/v0/pages/${draft.pageId}/audiences/${draft.audienceId}/versions`;
        const [latest] = (await client.get(url)).body.items;
        for (const [name, viewport] of Object.entries(VIEWPORTS)) {
          const page = await browser.newPage({
            viewport,
            extraHTTPHeaders: { 'x-api-key': client.apiKey as string },
          });
          const response = await page.goto(`${server.url}${url}/${latest.versionId}/preview`);
          expect(response?.status(), draft.label).toBe(200);
          expect(await page.locator('h1').textContent(), draft.label).toBe(latest.content.headline);
          const headings = await page.locator('main h2').allTextContents();
          for (const section of latest.content.sections)
            expect(headings, draft.label).toContain(section.heading);
          expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
          const file = draft.label.replace(/^demo \//, '').replaceAll('/', '-');
          await page.screenshot({ path: `${SHOTS}/${file}-${name}.png`, fullPage: true });
          await page.close();
        }
      }
    },
  );
});
