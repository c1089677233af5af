import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import type { Arm } from '../../src/resources/sessions/tables.ts';
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
import { recordDailySessions } from '../helpers/sessions.ts';

/**
 * The lift view (console/src/views/analytics/lift.tsx) in Chromium against a live server, in each of
 * its states: one verdict that never disagrees with itself, both intervals on one scale, the
 * always-valid interval narrowing day by day.
 */

const SHOTS = '/tmp/tailor-shots/lift';

let server: TestServer;
let api: Client;
let browser: Browser;
let paths = 0;

/** The audiences of each state, by name. */
const sites: Record<string, LinkedPage> = {};

/** An audience holding out `holdoutPercent` of its visitors, no visitor yet. */
const holdoutSite = (holdoutPercent: number) =>
  publishLinkedPage(server, api, {
    audience: { holdoutPercent },
    personalize: false,
    path: `/lift/${++paths}`,
  });

/** Sessions of one arm: `count` on each of the last `days` days, `converted` of each day's with a CTA click. */
type Traffic = [arm: Arm, days: number, count: number, converted: number];

/** Each state's audience: the share of its visitors it holds out, and the visitors it has had. */
const STATES: Record<string, { holdoutPercent: number; traffic: Traffic[] }> = {
  empty: { holdoutPercent: 50, traffic: [] },
  noHoldout: { holdoutPercent: 0, traffic: [['personalized', 1, 3, 1]] },
  oneArm: { holdoutPercent: 20, traffic: [['personalized', 1, 12, 2]] },
  unconverted: {
    holdoutPercent: 50,
    traffic: [
      ['personalized', 1, 6, 0],
      ['baseline', 1, 4, 0],
    ],
  },
  // The issue's: 1 of 5 converted with personalization, the 1 baseline visitor converted.
  small: {
    holdoutPercent: 20,
    traffic: [
      ['personalized', 1, 5, 1],
      ['baseline', 1, 1, 1],
    ],
  },
  running: {
    holdoutPercent: 20,
    traffic: [
      ['personalized', 14, 30, 9],
      ['baseline', 14, 8, 2],
    ],
  },
  deciding: {
    holdoutPercent: 20,
    traffic: [
      ['personalized', 14, 30, 15],
      ['baseline', 14, 8, 1],
    ],
  },
  losing: {
    holdoutPercent: 20,
    traffic: [
      ['personalized', 14, 30, 2],
      ['baseline', 14, 8, 4],
    ],
  },
};

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  for (const [name, { holdoutPercent, traffic }] of Object.entries(STATES)) {
    const site = await holdoutSite(holdoutPercent);
    sites[name] = site;
    for (const [arm, days, count, converted] of traffic)
      await recordDailySessions(server, api, site, arm, { days, count, converted });
  }
  if (hasChromium) browser = await launchChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const liftView = (name: string) => `/pages/${sites[name]?.pageId}/audiences/${sites[name]?.audienceId}/lift`;

const liftOf = (name: string) =>
  ok(
    api.get(
      `/v0/pages/${sites[name]?.pageId}/analytics/audiences/${sites[name]?.audienceId}/lift?minimumLift=0.02`,
    ),
  );

/** A lift in points as the console writes it in en-US: 0.123 → "+12.3 pts" ("+12.3" without the unit). */
const pts = (value: number, unit = true) =>
  `${(value * 100).toLocaleString('en-US', { maximumFractionDigits: 1, signDisplay: 'exceptZero' })}${unit ? ' pts' : ''}`;

const range = ({ lower, upper }: { lower: number; upper: number }) => `${pts(lower, false)} to ${pts(upper)}`;

/** The verdict once its heading reads `heading`: a view reached by `goTo` may still show the one before. */
async function verdictReading(page: Page, heading: string): Promise<{ heading: string; text: string }> {
  await expect.poll(async () => (await verdict(page)).heading).toBe(heading);
  return verdict(page);
}

async function verdict(page: Page): Promise<{ heading: string; text: string }> {
  const section = page.locator('section.decision');
  return {
    // Figures keep their unit on their line with a no-break space, read here as any space.
    heading: ((await section.getByRole('heading', { level: 2 }).textContent()) ?? '')
      .replace(/\s+/g, ' ')
      .trim(),
    text: ((await section.textContent()) ?? '').replace(/\s+/g, ' '),
  };
}

/** Every "about N more visitors" of the verdict, as numbers. */
const waits = (text: string) =>
  [...text.matchAll(/about ([\d,]+) more visitors?/g)].map((match) => Number(match[1]?.replace(/,/g, '')));

async function open(name: string, viewport: ViewportName = 'desktop') {
  const tab = await openConsole(browser, server.url, viewport);
  await signIn(tab.page, api.apiKey as string);
  await goTo(tab.page, liftView(name));
  return tab;
}

describe.skipIf(!hasChromium)('the lift view in Chromium', () => {
  it('says plainly what is missing: any visitor, a holdout, a visitor on one side, a conversion', async () => {
    const { page, cspViolations } = await open('empty');
    expect(await verdict(page)).toMatchObject({ heading: 'No visitors yet' });
    expect((await verdict(page)).text).toContain("Nobody has visited this audience's page in this period");
    // Nothing to compare: no lift figures, no interval, no day drawn from nothing.
    expect(await page.getByRole('heading', { name: 'Lift', exact: true }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Day by day (UTC)' }).count()).toBe(0);

    await goTo(page, liftView('noHoldout'));
    await verdictReading(page, 'No holdout, so nothing to compare with');
    await page.locator('section.decision').getByRole('link', { name: 'the audience' }).click();
    await page.waitForURL(new RegExp(`/audiences/${sites.noHoldout?.audienceId}$`));

    await goTo(page, liftView('oneArm'));
    expect((await verdictReading(page, 'No visitors in the baseline yet')).text).toContain(
      'The personalized page has had 12 visitors, the baseline none yet',
    );
    expect((await liftOf('oneArm')).confidenceSequence).toBeNull();
    expect(await page.getByRole('heading', { name: 'Lift', exact: true }).count()).toBe(0);
    await page.getByText(/^Nothing to draw yet/).waitFor();

    await goTo(page, liftView('unconverted'));
    expect((await verdictReading(page, 'No conversions yet')).text).toContain(
      '6 visitors saw the personalized page and 4 the baseline',
    );
    // The fixed interval exists without conversions, but with no always-valid one there is no lift to show.
    expect((await liftOf('unconverted')).confidenceInterval.lower).toEqual(expect.any(Number));
    expect(await page.getByText(/^Fixed 95 % interval: /).count()).toBe(0);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it("reads the issue's 5 against 1 session as one verdict: not enough data, a wait that covers it, the lift with its sign", async () => {
    const lift = await liftOf('small');
    expect(lift).toMatchObject({ decision: 'keep_running', enoughData: false, sessionsToDecision: 95 + 99 });
    expect(lift.confidenceSequence).toEqual({ lower: -1, upper: 1 });
    const { page } = await open('small');
    const { heading, text } = await verdict(page);
    expect(heading).toBe('Not enough data yet: about 200 more visitors');
    expect(text).toContain(
      'Still to come: 95 more visitors and 9 more conversions on the personalized page, 99 more visitors and 9 more conversions on the baseline.',
    );
    // Every wait it names is the same figure, never below what the sides still need.
    expect(new Set(waits(text))).toEqual(new Set([200]));
    expect(text).toContain(
      `1 of 5 visitors (20%) converted on the personalized page, 1 of 1 (100%) on the baseline: a lift of ${pts(-0.8)}`,
    );
    expect(text).not.toMatch(/\+80/);
    expect(text).not.toContain('Keep it running');
    // Both intervals on one scale, clipped to what a difference of two rates can be.
    await page.getByText('Always-valid 95 % interval: -100 to +100 pts', { exact: false }).waitFor();
    expect(await page.getByText(/-531|\+371/).count()).toBe(0);
    await page.getByText(/^Fixed 95 % interval: /).waitFor();
    await page.close();
  });

  it('keeps running with enough data: the wait in the heading and in the text are one figure', async () => {
    const lift = await liftOf('running');
    expect(lift).toMatchObject({ decision: 'keep_running', enoughData: true });
    const { page } = await open('running');
    const { heading, text } = await verdict(page);
    expect(heading).toMatch(/^Keep it running: about [\d,]+ more visitors$/);
    const [wait] = waits(heading);
    expect(wait).toBeGreaterThanOrEqual(lift.sessionsToDecision);
    expect(wait).toBeLessThan(lift.sessionsToDecision * 1.1 + 1);
    expect(new Set(waits(text))).toEqual(new Set([wait]));
    expect(text).toContain(`today's lift of ${pts(lift.absoluteLift)}`);
    expect(text).not.toContain('Not enough data');
    const chart = page.getByRole('img', {
      name: /^Chart of the always-valid 95 % interval of the lift, day by day/,
    });
    expect(await chart.getAttribute('aria-label')).toContain('It still includes zero.');
    await page.close();
  });

  it('says the decision with the sign of the lift, and draws the interval narrowing to it', async () => {
    const wins = await liftOf('deciding');
    expect(wins.decision).toBe('personalized_wins');
    const { page } = await open('deciding');
    const won = await verdict(page);
    expect(won.heading).toBe(`Personalization wins: ${pts(wins.absoluteLift)}`);
    expect(won.text).toContain(`at least ${pts(wins.confidenceSequence.lower)} with 95 % confidence`);
    expect(won.text).toContain('That interval stays valid however often you look, so you can act on it now.');
    const chart = page.getByRole('img', {
      name: /^Chart of the always-valid 95 % interval of the lift, day by day/,
    });
    await page.locator('.chart-canvas canvas').first().waitFor();
    const since = wins.daily.findLast((day: any) => !(day.confidenceSequence?.lower > 0));
    const firstAbove = wins.daily[wins.daily.indexOf(since) + 1];
    expect(await chart.getAttribute('aria-label')).toContain(
      `It has been above zero since ${firstAbove.date}.`,
    );
    // Each day's interval, in the table, from the visitors up to that day.
    await page.getByText('The days as a table').click();
    const last = wins.daily.at(-1);
    await page
      .getByRole('cell', { name: range(last.confidenceSequence) })
      .first()
      .waitFor();

    const loses = await liftOf('losing');
    expect(loses.decision).toBe('baseline_wins');
    await goTo(page, liftView('losing'));
    const lost = await verdictReading(page, `The baseline wins: ${pts(loses.absoluteLift)}`);
    expect(lost.heading).toMatch(/: -/);
    expect(lost.text).toContain(`at most ${pts(loses.confidenceSequence.upper)}`);
    expect(lost.text).toContain("rework this audience's version");
    await page.close();
  });

  it('opens what it folds with the keyboard alone, and shows a read-only key nothing that writes', async () => {
    const { page } = await open('deciding');
    const focused = () => page.evaluate('document.activeElement?.textContent ?? ""');
    for (const summary of ['Why two intervals?', 'The days as a table']) {
      for (let tabs = 0; tabs < 60 && (await focused()) !== summary; tabs++) await page.keyboard.press('Tab');
      expect(await focused()).toBe(summary);
      await page.keyboard.press('Enter');
    }
    await page.getByText(/stays right 95 % of the time however often it is read/).waitFor();
    await page.getByRole('table', { name: /always-valid interval per day/ }).waitFor();
    await page.close();

    const readOnly = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    const tab = await openConsole(browser, server.url);
    await signIn(tab.page, readOnly.apiKey);
    for (const name of ['empty', 'small', 'deciding']) {
      await goTo(tab.page, liftView(name));
      await expectNoWriteControl(tab.page, name);
    }
    await tab.page.close();
  });

  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    it(`shows each state at ${viewport} width without sideways scroll or a serious axe-core violation`, async () => {
      fs.mkdirSync(SHOTS, { recursive: true });
      const { page, cspViolations } = await open('empty', viewport);
      for (const name of [
        'empty',
        'noHoldout',
        'oneArm',
        'unconverted',
        'small',
        'running',
        'deciding',
        'losing',
      ]) {
        await goTo(page, liftView(name));
        if ((await liftOf(name)).confidenceSequence)
          await page.locator('.chart-canvas canvas').first().waitFor();
        await settle(page);
        await checkView(page, `lift-${name}`, viewport);
        await page.screenshot({ path: `${SHOTS}/${name}-${VIEWPORTS[viewport].width}.png`, fullPage: true });
      }
      expect(cspViolations).toEqual([]);
      await page.close();
    }, 120_000);
  }
});
