import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Arm } from '../../src/resources/sessions/tables.ts';
import { getTenant } from '../../src/resources/tenants/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import { type Client, ok, startServer, type TestServer } from '../helpers/server.ts';

const VISITORS_PER_AUDIENCE = 10;

let server: TestServer;
let api: Client;
let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  server = await startServer();
  api = await server.newTenant();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface HeldAudience {
  audienceId: string;
  url: string;
  /** The h1 of each arm's content. */
  headlines: Record<Arm, string>;
}

/** A page with two audiences, each personalized, published, linked and holding out `percent`. */
async function twoHeldAudiences(
  percents: [number, number],
): Promise<{ pageId: string; audiences: HeldAudience[] }> {
  const page = await ok(
    api.post('/v0/pages', {
      name: 'Spring launch',
      pageContext: 'Tailor writes every page for the company reading it, so retail teams launch faster.',
      brandId: 'acme',
      actions: [{ actionId: 'demo', buttonTitle: 'Book a demo', actionType: 'form' }],
      headerActionId: 'demo',
      actionCardWidgets: [],
      scripts: [],
    }),
    201,
  );
  await ok(api.post(`/v0/pages/${page.pageId}/publish`));
  const { slug } = await getTenant(anyTables(server.database), api.tenantId);
  const people = [
    { name: 'Jane Cooper', email: 'jane@globex.example' },
    { name: 'Marcus Lee', email: 'marcus@initech.example' },
  ];
  const audiences: HeldAudience[] = [];
  for (const [index, percent] of percents.entries()) {
    const person = await ok(api.post('/v0/persons', people[index]), 201);
    const audience = await ok(
      api.post(`/v0/pages/${page.pageId}/audiences`, { personId: person.personId, holdoutPercent: percent }),
      201,
    );
    await server.worker().drain();
    const base = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}`;
    await ok(api.post(`${base}/publish`));
    const path = `/spring/${index}`;
    await ok(
      api.post('/v0/page_links', {
        path,
        target: { targetType: 'audience', audienceId: audience.audienceId },
      }),
      201,
    );
    const versions = (await ok(api.get(`${base}/versions`))).items as {
      versionNumber: number;
      content: any;
    }[];
    const headline = (number: number) => versions.find((v) => v.versionNumber === number)?.content.headline;
    audiences.push({
      audienceId: audience.audienceId,
      url: `${server.pagesUrl}/p/${slug}${path}`,
      headlines: { baseline: headline(0), personalized: headline(1) },
    });
  }
  expect(audiences[0]?.headlines.baseline).not.toBe(audiences[0]?.headlines.personalized);
  return { pageId: page.pageId, audiences };
}

/** What one tab saw and did: its arm (by the page's content), and whether it clicked the CTA. */
interface Tab {
  arm: Arm;
  converted: boolean;
}

/** Opens the page in a new tab of `context`, checks the arm it was served, and clicks the CTA if told. */
async function visit(context: BrowserContext, audience: HeldAudience, convert: boolean): Promise<Tab> {
  const page = await context.newPage();
  expect((await page.goto(audience.url, { waitUntil: 'load' }))?.status()).toBe(200);
  const arm = (await page.locator('script[data-tailor-arm]').getAttribute('data-tailor-arm')) as Arm;
  expect(['baseline', 'personalized']).toContain(arm);
  expect(await page.locator('h1').textContent()).toBe(audience.headlines[arm]);
  if (convert) await page.click('header [data-action-id="demo"]');
  await page.waitForTimeout(200);
  await page.close({ runBeforeUnload: true });
  return { arm, converted: convert };
}

describe('holdouts in Chromium', () => {
  it.skipIf(!hasChromium)(
    'split real visitors sticky per browser, and the lift endpoint counts exactly what they did',
    async () => {
      const { pageId, audiences } = await twoHeldAudiences([50, 30]);
      const tabs = new Map<string, Tab[]>(audiences.map((audience) => [audience.audienceId, []]));
      // Browsers stay open until every tab's closing beacon has landed: closing a browser may cancel
      // a beacon still in flight, which a visitor's browser, left open, would have delivered.
      const contexts: BrowserContext[] = [];
      for (const audience of audiences) {
        for (let i = 0; i < VISITORS_PER_AUDIENCE; i++) {
          const context = await browser.newContext();
          contexts.push(context);
          const first = await visit(context, audience, i % 3 === 0);
          tabs.get(audience.audienceId)?.push(first);
          if (i % 4 === 0) {
            // A visitor who comes back: another tab now, and a browser restarted with its cookies later.
            const again = await visit(context, audience, false);
            expect(again.arm).toBe(first.arm);
            const state = await context.storageState();
            const cookie = state.cookies.find((entry) => entry.name === 'tailor_vid');
            expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
            const restarted = await browser.newContext({ storageState: state });
            contexts.push(restarted);
            const later = await visit(restarted, audience, i % 8 === 0);
            expect(later.arm).toBe(first.arm);
            tabs.get(audience.audienceId)?.push(again, later);
          }
        }
      }

      for (const audience of audiences) {
        const seen = tabs.get(audience.audienceId) as Tab[];
        const expected = (arm: Arm) => {
          const ofArm = seen.filter((tab) => tab.arm === arm);
          return { sessions: ofArm.length, conversions: ofArm.filter((tab) => tab.converted).length };
        };
        const url = `/v0/pages/${pageId}/analytics/audiences/${audience.audienceId}/lift`;
        // Each tab's last batch is a beacon sent as it closed: wait until all have landed.
        await expect
          .poll(
            async () => {
              const lift = (await api.get(url)).body;
              return lift.personalized.sessions + lift.baseline.sessions;
            },
            { timeout: 15_000 },
          )
          .toBe(seen.length);
        const lift = await ok(api.get(url));
        expect(lift.personalized).toMatchObject(expected('personalized'));
        expect(lift.baseline).toMatchObject(expected('baseline'));
        const today = lift.daily.at(-1);
        expect(today.personalized).toEqual(expected('personalized'));
        expect(today.baseline).toEqual(expected('baseline'));
        const rate = (arm: Arm) => expected(arm).conversions / expected(arm).sessions;
        if (expected('baseline').sessions > 0 && expected('personalized').sessions > 0) {
          expect(lift.absoluteLift).toBeCloseTo(rate('personalized') - rate('baseline'), 12);
          expect(lift.confidenceInterval.lower).toBeLessThanOrEqual(lift.absoluteLift);
          expect(lift.confidenceInterval.upper).toBeGreaterThanOrEqual(lift.absoluteLift);
        }
      }
      for (const context of contexts) await context.close();
      // Both arms were seen across the visitors (at 50 % and 30 %, 20 visitors make missing one unlikely).
      const arms = new Set([...tabs.values()].flat().map((tab) => tab.arm));
      expect([...arms].sort()).toEqual(['baseline', 'personalized']);
    },
    180_000,
  );
});
