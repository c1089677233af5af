import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import {
  checkView,
  expectNoWriteControl,
  openConsole,
  settle,
  signIn,
  VIEWPORTS,
  type ViewportName,
} from '../helpers/console.ts';
import { type LinkedPage, publishLinkedPage } from '../helpers/pages.ts';
import { type Client, ok, startServer, type TestServer } from '../helpers/server.ts';

/**
 * Leads (console/src/views/leads/*): form submissions, newest first, with their enrichment outcome,
 * linked to the person and the page, in Chromium against a live server.
 */

let server: TestServer;
let api: Client;
let browser: Browser;
let spring: LinkedPage;
let autumn: LinkedPage;
/** Form submission ids, as the forms were sent. */
const sent: Record<'company' | 'gmail' | 'invalid' | 'pending', string> = {
  company: '',
  gmail: '',
  invalid: '',
  pending: '',
};

/** Sends `site`'s form as its served page does, with the token that page carries. */
async function submit(site: LinkedPage, email: string, fields: Record<string, string>): Promise<string> {
  const visitor = server.visitor();
  const page = await visitor.get(site.url);
  expect(page.status).toBe(200);
  const token = /data-tailor-token="([^"]+)"/.exec(page.body)?.[1];
  expect(token).toBeDefined();
  const answer = await ok(visitor.post('/v0/public/forms', { token, email, fields }), 201);
  return answer.formSubmissionId;
}

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  spring = await publishLinkedPage(server, api, { personalize: false, path: '/leads/spring' });
  autumn = await publishLinkedPage(server, api, {
    personalize: false,
    page: { name: 'Autumn offer' },
    path: '/leads/autumn',
  });
  sent.company = await submit(spring, 'jane@globex.example', {
    name: 'Jane Doe',
    company: 'Globex',
    message: 'Can we see it before our launch?\nThursday works.',
  });
  sent.gmail = await submit(autumn, 'sam.lee@gmail.com', { name: 'Sam Lee' });
  sent.invalid = await submit(spring, 'not-an-address', { name: 'Nobody' });
  await server.worker().drain();
  // Sent after the worker ran: its enrichment waits.
  sent.pending = await submit(autumn, 'kim@initech.example', { name: 'Kim Park' });
  if (hasChromium) browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The list's row of the lead sent from `email`. */
function row(page: Page, email: string) {
  return page.locator('tbody tr').filter({ has: page.getByRole('link', { name: email, exact: true }) });
}

async function openLeads(apiKey = api.apiKey as string, viewport: ViewportName = 'desktop') {
  const tab = await openConsole(browser, server.url, viewport);
  await signIn(tab.page, apiKey);
  await tab.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Leads' }).click();
  await tab.page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
  await settle(tab.page);
  return tab;
}

describe.skipIf(!hasChromium)('leads in Chromium', () => {
  it('lists every lead newest first, with its page by name and its outcome in words', async () => {
    const { page, cspViolations } = await openLeads();
    const emails = await page.locator('tbody tr td:first-child a').allTextContents();
    expect(emails).toEqual([
      'kim@initech.example',
      'not-an-address',
      'sam.lee@gmail.com',
      'jane@globex.example',
    ]);
    const main = (await page.locator('main').textContent()) ?? '';
    expect(main).not.toMatch(/page_|audience_|person_|form_/);

    const jane = row(page, 'jane@globex.example');
    await jane.getByRole('link', { name: 'Spring launch' }).waitFor();
    expect(await jane.textContent()).toContain('enriched');
    await jane.getByRole('link', { name: 'Jane Doe' }).waitFor();
    await jane.getByRole('link', { name: 'globex.example', exact: true }).waitFor();

    const sam = row(page, 'sam.lee@gmail.com');
    await sam.getByRole('link', { name: 'Autumn offer' }).waitFor();
    await sam.getByRole('link', { name: 'Sam Lee' }).waitFor();
    expect(await sam.textContent()).toContain('no company');

    const nobody = row(page, 'not-an-address');
    expect(await nobody.textContent()).toContain('failed');
    expect(await nobody.textContent()).toContain('the email address is not a valid one');

    // The pending lead's outcome follows enrichment, without a reload.
    const kim = row(page, 'kim@initech.example');
    expect(await kim.textContent()).toContain('pending');
    await server.worker().drain();
    await kim.getByRole('link', { name: 'Kim Park' }).waitFor({ timeout: 10_000 });
    expect(await kim.textContent()).toContain('enriched');
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 60_000);

  it('filters by outcome and by page, kept in the address', async () => {
    await server.worker().drain();
    const { page } = await openLeads();
    const emails = () => page.locator('tbody tr td:first-child a').allTextContents();
    await page.getByLabel('Outcome').selectOption('failed');
    await expect.poll(emails).toEqual(['not-an-address']);
    expect(new URL(page.url()).search).toBe('?enrichment=failed');

    await page.getByLabel('Outcome').selectOption('enriched');
    await page.getByLabel('Page').selectOption({ label: 'Autumn offer' });
    await expect.poll(emails).toEqual(['kim@initech.example', 'sam.lee@gmail.com']);
    expect(new URL(page.url()).searchParams.get('pageId')).toBe(autumn.pageId);

    // Reloaded, the address keeps the filters.
    await page.reload();
    await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
    await expect.poll(emails).toEqual(['kim@initech.example', 'sam.lee@gmail.com']);
    expect(await page.getByLabel('Outcome').inputValue()).toBe('enriched');

    await page.getByLabel('Page').selectOption({ label: 'Spring launch' });
    await page.getByLabel('Outcome').selectOption('pending');
    await page.getByText('No lead matches.').waitFor();
    await page.getByLabel('Outcome').selectOption('');
    await page.getByLabel('Page').selectOption('');
    await expect.poll(async () => (await emails()).length).toBe(4);
    expect(new URL(page.url()).search).toBe('');
    await page.close();
  }, 60_000);

  it('shows a lead with what was sent, its page, audience and link, and leads to its person', async () => {
    const { page, cspViolations } = await openLeads();
    await page.getByRole('link', { name: 'jane@globex.example', exact: true }).click();
    await page.getByRole('heading', { name: 'Lead: jane@globex.example' }).waitFor();
    await settle(page);
    const sentFields = page.locator('.lead-fields');
    expect(await sentFields.textContent()).toContain('Can we see it before our launch?');
    expect(await sentFields.locator('dd', { hasText: 'Thursday works.' }).count()).toBe(1);
    await page.getByRole('link', { name: 'Spring launch' }).waitFor();
    await page.getByRole('link', { name: '/leads/spring' }).waitFor();
    expect(await page.getByRole('link', { name: '/leads/spring' }).getAttribute('href')).toMatch(
      new RegExp(`^${server.pagesUrl}/p/`),
    );
    await page.getByRole('link', { name: 'Jane Doe' }).click();
    await page.getByRole('heading', { name: 'Jane Doe', level: 1 }).waitFor();
    expect(page.url()).toMatch(/\/console\/persons\/person_/);

    // A page's leads, from a lead of it.
    await page.goBack();
    await page.getByRole('link', { name: 'its leads' }).click();
    await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
    await expect
      .poll(() => page.locator('tbody tr td:first-child a').allTextContents())
      .toEqual(['not-an-address', 'jane@globex.example']);
    expect(await page.getByLabel('Page').inputValue()).toBe(spring.pageId);
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows a read-only key the leads, with no control that writes', async () => {
    const readOnly = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    const { page } = await openLeads(readOnly.apiKey);
    await expectNoWriteControl(page, '/leads');
    await page.getByRole('link', { name: 'sam.lee@gmail.com', exact: true }).click();
    await page.getByRole('heading', { name: 'Lead: sam.lee@gmail.com' }).waitFor();
    await settle(page);
    await expectNoWriteControl(page, `/leads/${sent.gmail}`);
    await page.close();
  }, 60_000);

  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    it(`shows the leads at ${viewport} width without sideways scroll or a serious axe-core violation`, async () => {
      const { page, cspViolations } = await openLeads(api.apiKey as string, viewport);
      await checkView(page, 'leads', viewport);
      await page.getByRole('link', { name: 'jane@globex.example', exact: true }).click();
      await page.getByRole('heading', { name: 'Lead: jane@globex.example' }).waitFor();
      await checkView(page, 'lead', viewport);
      await page.goto(`${server.url}/console/leads/${sent.invalid}`);
      await page.getByRole('heading', { name: 'Lead: not-an-address' }).waitFor();
      await checkView(page, 'lead-failed', viewport);
      expect(cspViolations).toEqual([]);
      await page.close();
    }, 60_000);
  }
});

describe.skipIf(!hasChromium)('what a lead saw, in Chromium', () => {
  const SHOTS = '/tmp/tailor-shots/editor';

  /** A tenant whose audience holds half its visitors out, with a lead from each arm. */
  async function heldOutLeads() {
    const tenant = await server.newTenant();
    const person = await ok(
      tenant.post('/v0/persons', { name: 'Ada Park', email: 'ada@globex.example' }),
      201,
    );
    const site = await publishLinkedPage(server, tenant, {
      audience: { personId: person.personId, holdoutPercent: 50 },
      path: '/leads/held-out',
    });
    const leads: Partial<Record<'baseline' | 'personalized', string>> = {};
    while (!leads.baseline || !leads.personalized) {
      const visitorId = randomBytes(16).toString('base64url');
      const page = await server.visitor().get(site.url, { headers: { cookie: `tailor_vid=${visitorId}` } });
      const arm = /data-tailor-arm="([a-z]+)"/.exec(page.body)?.[1] as 'baseline' | 'personalized';
      if (leads[arm]) continue;
      const token = /data-tailor-token="([^"]+)"/.exec(page.body)?.[1];
      const email = `${arm}@globex.example`;
      leads[arm] = (
        await ok(server.visitor().post('/v0/public/forms', { token, email, fields: { name: arm } }), 201)
      ).formSubmissionId;
    }
    await server.worker().drain();
    const versions = await ok(tenant.get(`/v0/pages/${site.pageId}/audiences/${site.audienceId}/versions`));
    const idOf = (number: number) =>
      versions.items.find((version: { versionNumber: number }) => version.versionNumber === number).versionId;
    return { tenant, site, leads, baseline: idOf(0), published: idOf(1) };
  }

  it('says the arm and the version each visitor saw, in the list and the lead, linked to its preview', async () => {
    const { tenant, site, leads, baseline, published } = await heldOutLeads();
    const previewOf = (versionId: string) =>
      `/console/pages/${site.pageId}/audiences/${site.audienceId}/versions/${versionId}`;
    for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
      const { page, cspViolations } = await openLeads(tenant.apiKey as string, viewport);
      const held = row(page, 'baseline@globex.example');
      const shown = row(page, 'personalized@globex.example');
      await held.getByRole('link', { name: 'version 0' }).waitFor();
      await shown.getByRole('link', { name: 'version 1' }).waitFor();
      expect(await held.locator('td[data-label="Saw"]').textContent()).toBe('Baseline (holdout) · version 0');
      expect(await shown.locator('td[data-label="Saw"]').textContent()).toBe('Personalized · version 1');
      expect(await held.getByRole('link', { name: 'version 0' }).getAttribute('href')).toBe(
        previewOf(baseline),
      );
      await checkView(page, 'leads-arms', viewport);
      await page.screenshot({ path: `${SHOTS}/leads-arms-${viewport}.png`, fullPage: true });

      await page.goto(`${server.url}/console/leads/${leads.baseline}`);
      await page.getByRole('heading', { name: 'Lead: baseline@globex.example' }).waitFor();
      await settle(page);
      const saw = page.locator('.facts div', { has: page.getByText('The visitor saw', { exact: true }) });
      expect(await saw.locator('dd').textContent()).toBe('Baseline (holdout) · version 0');
      await checkView(page, 'lead-arm', viewport);
      await page.screenshot({ path: `${SHOTS}/lead-baseline-${viewport}.png`, fullPage: true });

      await page.goto(`${server.url}/console/leads/${leads.personalized}`);
      await page.getByRole('heading', { name: 'Lead: personalized@globex.example' }).waitFor();
      await settle(page);
      await saw.getByRole('link', { name: 'version 1' }).click();
      await page.getByRole('heading', { name: 'Version 1 beside the baseline' }).waitFor();
      expect(new URL(page.url()).pathname).toBe(previewOf(published));
      expect(cspViolations).toEqual([]);
      await page.close();
    }
  }, 120_000);

  it('says what is not known of a lead kept from before Tailor recorded it', async () => {
    const tenant = await server.newTenant();
    const site = await publishLinkedPage(server, tenant, { personalize: false, path: '/leads/older' });
    const id = await submit(site, 'older@globex.example', { name: 'Older' });
    await anyTables(server.database)
      .updateTable('form_submissions')
      .set({ arm: null, version_id: null })
      .where('id', '=', id)
      .execute();
    const { page } = await openLeads(tenant.apiKey as string);
    expect(await row(page, 'older@globex.example').locator('td[data-label="Saw"]').textContent()).toBe(
      'not recorded',
    );
    await page.close();
  }, 60_000);
});
