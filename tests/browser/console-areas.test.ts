import { verifyWebhook } from '@tailor/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import type { Arm } from '../../src/resources/sessions/tables.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import {
  cell,
  checkView,
  expectNoWriteControl,
  goTo,
  openConsole,
  row,
  settle,
  signIn,
  VIEWPORTS,
  type ViewportName,
} from '../helpers/console.ts';
import { png } from '../helpers/images.ts';
import { type LinkedPage, publishLinkedPage } from '../helpers/pages.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { type Client, ok, startServer, type TestServer } from '../helpers/server.ts';
import { recordDailySessions } from '../helpers/sessions.ts';

/**
 * The console's areas beyond pages and links (console/src/area-routes.tsx): analytics and lift,
 * persons and accounts, brands, webhooks, in Chromium against a live server.
 */

let server: TestServer;
let api: Client;
let browser: Browser;
/** A page whose audience holds out half its visitors, visited by nobody yet: the journey's end. */
let visited: LinkedPage;
/** A page whose audience has weeks of sessions in both arms: a lift with enough data, undecided. */
let busy: LinkedPage;
/** A page whose personalized version converts twice as well as its baseline: a decided lift. */
let winning: LinkedPage;
let personId: string;
let accountId: string;
let subscriptionId: string;

/** `count` sessions of one arm on each of the last `days` days, `converted` of each day's with a CTA click. */
const seedSessions = (site: LinkedPage, arm: Arm, days: number, count: number, converted: number) =>
  recordDailySessions(server, api, site, arm, { days, count, converted });

beforeAll(async () => {
  server = await startServer({ allowPrivateWebhooks: true });
  api = await server.newTenant();
  const sam = await ok(
    api.post('/v0/persons', { name: 'Sam Lee', email: 'sam@initech.example', phoneNumber: '+14155550100' }),
    201,
  );
  personId = sam.personId;
  await ok(
    api.post(`/v0/persons/${personId}/logs`, { text: 'Met at the retail fair.\nWants numbers.' }),
    201,
  );
  const jane = await ok(api.post('/v0/persons', { name: 'Jane Doe', email: 'jane@globex.example' }), 201);
  accountId = (await ok(api.get('/v0/accounts/search?query=initech'))).items[0].accountId;
  await ok(api.patch(`/v0/accounts/${accountId}`, { name: 'Initech' }));
  visited = await publishLinkedPage(server, api, {
    path: '/spring/sam',
    audience: { personId, holdoutPercent: 50 },
  });
  busy = await publishLinkedPage(server, api, {
    page: { name: 'Autumn offer' },
    path: '/autumn/jane',
    audience: { personId: jane.personId, holdoutPercent: 20 },
  });
  await seedSessions(busy, 'personalized', 14, 30, 9);
  await seedSessions(busy, 'baseline', 14, 8, 2);
  winning = await publishLinkedPage(server, api, {
    page: { name: 'Winter offer' },
    path: '/winter/jane',
    audience: { personId: jane.personId, holdoutPercent: 20 },
  });
  await seedSessions(winning, 'personalized', 14, 30, 15);
  await seedSessions(winning, 'baseline', 14, 8, 1);
  await ok(
    api.request('PUT', '/v0/brands/acme', {
      body: {
        name: 'Acme Retail',
        website: 'https://acme.example',
        colors: { primary: '#3730a3', accent: '#f59e0b' },
        voice: 'Plain and warm.',
      },
    }),
    201,
  );
  const subscription = await ok(
    api.post('/v0/webhook_subscriptions', { url: 'http://127.0.0.1:9/hooks', events: ['form.submitted'] }),
    201,
  );
  subscriptionId = subscription.subscriptionId;
  await ok(api.post(`/v0/webhook_subscriptions/${subscriptionId}/test`));
  if (hasChromium) browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

function views(): [string, string][] {
  const lift = (site: LinkedPage) => `/pages/${site.pageId}/audiences/${site.audienceId}/lift`;
  return [
    ['analytics', `/pages/${busy.pageId}/analytics`],
    ['lift', lift(busy)],
    ['lift-not-enough', lift(visited)],
    ['lift-wins', lift(winning)],
    ['persons', '/persons'],
    ['person', `/persons/${personId}`],
    ['person-new', '/persons/new'],
    ['person-edit', `/persons/${personId}/edit`],
    ['accounts', '/accounts'],
    ['account', `/accounts/${accountId}`],
    ['brands', '/brands'],
    ['brand', '/brands/acme'],
    ['brand-new', '/brands/new'],
    ['brand-edit', '/brands/acme/edit'],
    ['webhooks', '/webhooks'],
    ['webhook', `/webhooks/${subscriptionId}`],
  ];
}

describe.skipIf(!hasChromium)('the console areas in Chromium', () => {
  it("finds a public page's visit in the page's analytics and in the audience's lift", async () => {
    const visitor = await browser.newContext();
    const tab = await visitor.newPage();
    expect((await tab.goto(`${server.url}${visited.url}`))?.status()).toBe(200);
    const arm = (await tab.locator('script[data-tailor-arm]').getAttribute('data-tailor-arm')) as Arm;
    // The tracker sends its batch as the tab goes (pagehide); the browser stays open until it lands.
    await tab.close({ runBeforeUnload: true });
    await expect
      .poll(
        async () =>
          (await api.get(`/v0/pages/${visited.pageId}/analytics/audiences`)).body.items[0].totalSessions,
        { timeout: 15_000 },
      )
      .toBe(1);
    await visitor.close();

    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await goTo(page, `/pages/${visited.pageId}`);
    await page.getByRole('link', { name: 'Analytics' }).click();
    await page.getByRole('heading', { name: 'Analytics of Spring launch', level: 1 }).waitFor();
    await settle(page);
    const audience = row(page, 'Audience analytics', 'Sam Lee');
    expect(await cell(audience, 'Sessions')).toBe('1');
    expect(await page.getByRole('img', { name: /Sam Lee at Initech: 1 session,/ }).count()).toBe(1);
    await page.locator('.chart-canvas canvas').first().waitFor();

    await audience.getByRole('link', { name: 'Lift (50 % holdout)' }).click();
    await page.getByRole('heading', { name: /^Lift of Sam Lee/, level: 1 }).waitFor();
    await settle(page);
    const arms = { personalized: 'Personalized', baseline: 'Baseline (holdout)' } as const;
    expect(await cell(row(page, 'Visitors and conversions of each side', arms[arm]), 'Visitors')).toBe('1');
    // The view itself is tested in console-lift.test.ts; here, that the visit reached it.
    await page
      .getByRole('heading', {
        name: /^No visitors (in the baseline|on the personalized page) yet$/,
        level: 2,
      })
      .waitFor();
    await page.locator('.chart-canvas canvas').first().waitFor();

    // Another period, chosen from the presets, is kept in the address and counts the same visit.
    await page.getByRole('combobox', { name: 'Period' }).selectOption('24h');
    await settle(page);
    expect(page.url()).toContain('period=24h');
    expect(await cell(row(page, 'Visitors and conversions of each side', arms[arm]), 'Visitors')).toBe('1');
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('makes a person, shows a field error beside its field, and keeps a note in their log', async () => {
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await page.getByRole('link', { name: 'Persons' }).click();
    await page.getByRole('link', { name: 'New person' }).click();
    await page.getByLabel('Name').fill('Ada Park');
    await page.getByLabel('Email').fill('ada@umbrella.example');
    await page.getByLabel('Phone number').fill('call me');
    await page.getByRole('button', { name: 'Create the person' }).click();
    await page.getByText('Not saved. Correct the field marked.').waitFor();
    const phone = page.getByLabel('Phone number');
    expect(await phone.getAttribute('aria-invalid')).toBe('true');

    await phone.fill('+442071838750');
    await page.getByRole('button', { name: 'Create the person' }).click();
    await page.getByRole('heading', { name: 'Ada Park', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'umbrella.example' }).waitFor();
    await page.getByLabel('New note').fill('Prefers email.');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.getByText('Prefers email.', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Edit note' }).click();
    await page.getByLabel('Note', { exact: true }).fill('Prefers email, mornings.');
    await page.getByRole('button', { name: 'Save note' }).click();
    await page.getByText('Prefers email, mornings.', { exact: true }).waitFor();

    await page.getByRole('link', { name: 'umbrella.example' }).click();
    await page.getByLabel('Company name').fill('Umbrella');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { name: 'Umbrella', level: 1 }).waitFor();
    expect(await row(page, 'Persons of this account', 'Ada Park').count()).toBe(1);

    await page.getByRole('link', { name: 'Persons', exact: true }).click();
    await page.getByLabel('Search by name or email').fill('PARK');
    await expect.poll(() => page.locator('table tbody tr').count()).toBe(1);
    expect(await row(page, 'Persons', 'Ada Park').count()).toBe(1);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('links a LinkedIn profile only when it is http(s), also one stored before URLs were checked (issue 21 finding 11)', async () => {
    const linked = await ok(
      api.post('/v0/persons', {
        name: 'Linked Person',
        linkedinProfileUrl: 'https://www.linkedin.com/in/linked',
      }),
      201,
    );
    const legacy = await ok(api.post('/v0/persons', { name: 'Legacy Person' }), 201);
    await anyTables(server.database)
      .updateTable('persons')
      .set({ linkedin_profile_url: 'javascript:alert(1)' })
      .where('id', '=', legacy.personId)
      .execute();
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await goTo(page, `/persons/${linked.personId}`);
    expect(await page.getByRole('link', { name: 'Profile' }).getAttribute('href')).toBe(
      'https://www.linkedin.com/in/linked',
    );
    await goTo(page, `/persons/${legacy.personId}`);
    await page.getByText('javascript:alert(1)', { exact: true }).waitFor();
    expect(await page.locator('a[href^="javascript:" i]').count()).toBe(0);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it("uploads a brand's logo through files and assets and shows it", async () => {
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await page.getByRole('link', { name: 'Brands' }).click();
    await page.getByRole('link', { name: 'New brand' }).click();
    await page.getByLabel('Brand id').fill('acme');
    await page.getByRole('link', { name: 'Acme Retail' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create the brand' }).isDisabled()).toBe(true);
    await page.getByLabel('Brand id').fill('north');
    await page.getByLabel('Name').fill('North Goods');
    await page
      .getByLabel('Upload a logo')
      .setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png(20, 80, 200) });
    const logo = page.getByRole('img', { name: 'The logo of North Goods' });
    await expect
      .poll(() => logo.evaluate((image) => (image as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(0);
    await page.getByLabel('Primary').fill('#12345g');
    await page.getByRole('button', { name: 'Create the brand' }).click();
    await page.getByText('Not saved. Correct the field marked.').waitFor();
    expect(await page.getByLabel('Primary').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Primary').fill('#123456');
    await page.getByRole('button', { name: 'Create the brand' }).click();
    await page.getByRole('heading', { name: 'North Goods', level: 1 }).waitFor();
    await expect
      .poll(() =>
        page
          .getByRole('img', { name: 'The logo of North Goods' })
          .evaluate((image) => (image as { naturalWidth: number }).naturalWidth),
      )
      .toBeGreaterThan(0);
    const brand = await ok(api.get('/v0/brands/north'));
    expect(brand).toMatchObject({ name: 'North Goods', colors: { primary: '#123456', accent: null } });
    expect((await ok(api.get(`/v0/assets/${brand.logoAssetId}`))).name).toBe('North Goods logo');
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('makes a subscription, shows its secret once, sends a test that fails, and retries it to success', async () => {
    const receiver = await startReceiver((_request, index) => ({ status: index === 0 ? 500 : 204 }));
    const worker = server.worker();
    worker.start();
    try {
      const { page, cspViolations } = await openConsole(browser, server.url);
      await signIn(page, api.apiKey as string);
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByText('New subscription').click();
      await page.getByLabel('Receiver URL').fill(receiver.url);
      await page.getByLabel('Only these:').check();
      await page.getByLabel(/^form\.submitted/).check();
      await page.getByRole('button', { name: 'Create the subscription' }).click();
      const secret = await page.getByLabel('Signing secret').inputValue();
      expect(secret).toMatch(/^whsec_/);
      await page.getByRole('link', { name: 'Open it' }).click();
      await page.getByRole('heading', { name: receiver.url, level: 1 }).waitFor();
      expect(await page.getByLabel('Signing secret').count()).toBe(0);

      await page.getByRole('button', { name: 'Send a test' }).click();
      await page.getByText('The test failed:').waitFor();
      await expect(
        page.getByRole('status').filter({ hasText: 'The test failed' }).textContent(),
      ).resolves.toContain('status 500');
      const delivery = row(page, 'Delivery log', 'webhook.test');
      await expect.poll(() => cell(delivery, 'State')).toBe('failed');

      await delivery.getByRole('button', { name: /^Retry/ }).click();
      await expect.poll(() => cell(delivery, 'State'), { timeout: 15_000 }).toBe('succeeded');
      expect(await cell(delivery, 'Attempts')).toBe('2');
      const [first, second] = receiver.received;
      expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
      expect(verifyWebhook(secret, second?.body ?? '', second?.headers ?? {}).type).toBe('webhook.test');
      expect(cspViolations).toEqual([]);
      await page.close();
    } finally {
      await worker.stop();
      await receiver.close();
    }
  }, 60_000);

  it('can be used with the keyboard alone: a period chosen, a person erased after the question', async () => {
    const doomed = await ok(
      api.post('/v0/persons', { name: 'Lee Gone', email: 'gone@initech.example' }),
      201,
    );
    const { page } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    const focused = () => page.evaluate('document.activeElement?.textContent ?? ""');
    const tabTo = async (text: string) => {
      for (let tabs = 0; tabs < 40 && (await focused()) !== text; tabs++) await page.keyboard.press('Tab');
      expect(await focused()).toBe(text);
    };

    await goTo(page, `/pages/${busy.pageId}/analytics`);
    await page.getByRole('combobox', { name: 'Period' }).focus();
    await page.keyboard.press('ArrowDown');
    await settle(page);
    expect(page.url()).toContain('period=90d');
    await page.getByRole('heading', { name: 'Every audience, last 90 days' }).waitFor();

    await goTo(page, `/persons/${doomed.personId}`);
    await tabTo('Erase');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('Yes, erase');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Persons', level: 1 }).waitFor();
    expect((await api.get(`/v0/persons/${doomed.personId}`)).status).toBe(404);
    await page.close();
  });

  it('shows a read-only key no control that writes on these views', async () => {
    const readOnly = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, readOnly.apiKey);
    for (const [name, view] of views().filter(([name]) => !/-(new|edit)$/.test(name))) {
      await goTo(page, view);
      await expectNoWriteControl(page, name);
    }
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    it(`shows every view at ${viewport} width without sideways scroll or a serious axe-core violation`, async () => {
      const { page, cspViolations } = await openConsole(browser, server.url, viewport);
      await signIn(page, api.apiKey as string);
      for (const [name, view] of views()) {
        await goTo(page, view);
        if (name === 'analytics' || name === 'lift' || name === 'lift-wins')
          await page.locator('.chart-canvas canvas').first().waitFor();
        await checkView(page, name, viewport);
      }
      expect(cspViolations).toEqual([]);
      await page.close();
    }, 120_000);
  }
});
