import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getTenant } from '../../src/resources/tenants/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import { uploadImage } from '../helpers/images.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { type Client, ok, startServer, type TestServer } from '../helpers/server.ts';

const SCREENSHOT = '/tmp/tailor-public-page.png';
const MOBILE_SCREENSHOT = '/tmp/tailor-public-page-mobile.png';
const INJECTION = '<img src=x onerror="window.__pwned=1">';
const SCRIPT_INJECTION = '<script>window.__pwned=2; alert(2)</script>';

interface Batch {
  contentType: string;
  body: {
    token: string;
    sessionId: string;
    events: { type: string; at: number; [field: string]: unknown }[];
  };
}

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

function wordmark(name: string, color: string): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="180" height="48" viewBox="0 0 180 48"><circle cx="20" cy="24" r="14" fill="${color}"/><text x="42" y="32" font-family="Helvetica, Arial, sans-serif" font-size="24" font-weight="700" fill="#1e293b">${name}</text></svg>`,
  );
}

/** A published, personalized page with a link, with injection attempts in its fields. */
async function publishedPage(): Promise<{ url: string; pageId: string; audienceId: string }> {
  const logos = await Promise.all(
    [
      ['Globex', '#2563eb'],
      ['Initech', '#16a34a'],
      ['Umbrella', '#dc2626'],
      ['Hooli', '#9333ea'],
    ].map(async ([name = '', color = '']) => ({
      image: { altText: name, fileId: await uploadImage(api, wordmark(name, color), 'image/svg+xml') },
    })),
  );
  await ok(api.post('/v0/accounts', { domain: 'globex.example', name: 'Globex' }), 201);
  const person = await ok(api.post('/v0/persons', { name: 'Jane Doe', email: 'jane@globex.example' }), 201);
  const page = await ok(
    api.post('/v0/pages', {
      name: `Spring launch ${INJECTION}`,
      pageContext:
        'Tailor turns every visit into a conversation: pages written for the company reading them. Retail teams launch personalized campaigns in minutes and see which accounts engage.',
      brandId: 'acme',
      actions: [
        { actionId: 'demo', buttonTitle: 'Book a demo', actionType: 'form', purpose: INJECTION },
        { actionId: 'tour', buttonTitle: 'Take the tour', actionType: 'link', url: '#tour' },
      ],
      headerActionId: 'demo',
      actionCardWidgets: [{ type: 'logos', title: 'Trusted by retail leaders', logos }],
      scripts: [
        { name: 'Marker', content: '<script>window.tenantScriptRan = true</script>' },
        { name: 'Off', content: '<script>window.__pwned = 3</script>', enabled: false },
      ],
      footerLinks: [
        {
          title: 'Product',
          links: [
            { text: 'Features', url: '/features' },
            { text: 'Pricing', url: '/pricing' },
          ],
        },
        {
          title: 'Company',
          links: [
            { text: 'About', url: 'https://example.com/about' },
            { text: INJECTION, url: 'https://example.com/"><script>window.__pwned=4</script>' },
          ],
        },
      ],
      metadata: {
        title: 'Acme Growth Cloud',
        description: `Personalized for you ${INJECTION}`,
        ogSiteName: 'Acme',
        themeColor: '#4338ca',
      },
    }),
    201,
  );
  await ok(api.post(`/v0/pages/${page.pageId}/publish`));
  const audience = await ok(
    api.post(`/v0/pages/${page.pageId}/audiences`, {
      personId: person.personId,
      supplementaryContext: `Globex is opening 40 stores this spring and wants every launch page to speak to the shopper in front of it.\n\n${SCRIPT_INJECTION}`,
      actionFormInstructionsOverride: `Tell us about your spring launch and we will prepare a walkthrough for your team. ${INJECTION}`,
    }),
    201,
  );
  await server.worker().drain();
  await ok(api.post(`/v0/pages/${page.pageId}/audiences/${audience.audienceId}/publish`));
  await ok(
    api.post('/v0/page_links', {
      path: '/spring/jane',
      target: { targetType: 'audience', audienceId: audience.audienceId },
    }),
    201,
  );
  const { slug } = await getTenant(anyTables(server.database), api.tenantId);
  return {
    url: `${server.pagesUrl}/p/${slug}/spring/jane`,
    pageId: page.pageId,
    audienceId: audience.audienceId,
  };
}

/** Signed file links name the configured public URL, which has no port in tests: send them to this server. */
async function routeFileLinks(page: Page): Promise<void> {
  await page.route('http://127.0.0.1/v0/public/files/**', (route) =>
    route.continue({ url: route.request().url().replace('http://127.0.0.1', server.url) }),
  );
}

describe('a public page in Chromium', () => {
  it.skipIf(!hasChromium)(
    'renders, runs no injected markup, reports the session and submits the form; analytics and webhooks follow',
    async () => {
      const receiver = await startReceiver();
      const subscription = await ok(
        api.post('/v0/webhook_subscriptions', {
          url: receiver.url,
          events: ['form.submitted', 'form.enriched'],
        }),
        201,
      );
      const { url, pageId, audienceId } = await publishedPage();
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await routeFileLinks(page);
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      const batches: Batch[] = [];
      const forms: unknown[] = [];
      page.on('request', (request) => {
        if (request.method() !== 'POST') return;
        const body = JSON.parse(request.postData() ?? 'null');
        if (request.url().endsWith('/v0/public/events')) {
          batches.push({ contentType: request.headers()['content-type'] ?? '', body });
        } else if (request.url().endsWith('/v0/public/forms')) {
          forms.push(body);
        }
      });

      const response = await page.goto(url, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      const headline = page.locator('h1');
      await expect.poll(() => headline.isVisible()).toBe(true);
      expect(await headline.textContent()).toMatch(/Jane|Globex/);
      expect(await page.locator('body').textContent()).not.toContain('Globex is opening 40 stores');
      expect(await page.evaluate('window.__pwned')).toBeUndefined();
      expect(await page.evaluate('window.tenantScriptRan')).toBe(true);
      expect(await page.locator('.logos img').count()).toBe(4);
      await expect
        .poll(() =>
          page.evaluate(`[...document.querySelectorAll('.logos img')].every((img) => img.naturalWidth > 0)`),
        )
        .toBe(true);
      const token = await page.locator('script[data-tailor-token]').getAttribute('data-tailor-token');

      await page.screenshot({ path: SCREENSHOT, fullPage: true });

      await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
      await page.waitForTimeout(1100);
      await page.click('header [data-action-id="demo"]');
      await expect
        .poll(
          () => batches.flatMap((batch) => batch.body.events).some((event) => event.type === 'cta_click'),
          {
            timeout: 10_000,
          },
        )
        .toBe(true);

      await page.fill('input[name="name"]', 'Jane Doe');
      await page.fill('input[name="email"]', 'jane@globex.example');
      await page.fill('input[name="company"]', 'Globex');
      await page.fill('textarea[name="message"]', 'Show us the spring templates.');
      await page.click('form[data-tailor-form] button[type="submit"]');
      await expect.poll(() => forms.length).toBe(1);
      await expect
        .poll(() =>
          page.locator('[data-tailor-form-thanks]:visible, [data-tailor-form-error]:visible').count(),
        )
        .toBe(1);

      expect(dialogs).toEqual([]);
      expect(await page.evaluate('window.__pwned')).toBeUndefined();

      const events = batches.flatMap((batch) => batch.body.events);
      for (const batch of batches) {
        expect(batch.contentType).toMatch(/^text\/plain/);
        expect(batch.body.token).toBe(token);
        expect(batch.body.sessionId).toMatch(
          /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        );
        expect(batch.body.sessionId).toBe(batches[0]?.body.sessionId);
        expect(batch.body.events.length).toBeGreaterThan(0);
        expect(batch.body.events.length).toBeLessThanOrEqual(50);
      }
      for (const event of events) {
        expect(Number.isInteger(event.at)).toBe(true);
        expect(Math.abs(Date.now() - event.at)).toBeLessThan(60_000);
      }
      expect(events.filter((event) => event.type === 'session_start')).toHaveLength(1);
      expect(events[0]?.type).toBe('session_start');
      expect(events).toContainEqual({ type: 'cta_click', at: expect.any(Number), actionId: 'demo' });
      expect(events).toContainEqual({ type: 'interaction', at: expect.any(Number) });
      expect(events).toContainEqual({ type: 'scroll', at: expect.any(Number), depth: 100 });
      const depths = events.filter((event) => event.type === 'scroll').map((event) => event.depth as number);
      expect(depths).toEqual([...depths].sort((a, b) => a - b));
      const times = events.filter((event) => event.type === 'time').map((event) => event.ms as number);
      expect(times.length).toBeGreaterThan(0);
      expect(times.every((ms) => Number.isInteger(ms) && ms > 0)).toBe(true);

      expect(forms).toEqual([
        {
          token,
          sessionId: batches[0]?.body.sessionId,
          email: 'jane@globex.example',
          fields: { name: 'Jane Doe', company: 'Globex', message: 'Show us the spring templates.' },
        },
      ]);

      // Leaving the page flushes the last batch; then the visit shows in the analytics.
      await context.close();
      await expect
        .poll(
          async () =>
            (await api.get(`/v0/pages/${pageId}/analytics/audiences`)).body.items.find(
              (item: { audienceId: string }) => item.audienceId === audienceId,
            )?.avgTimeSpentSeconds > 0,
          { timeout: 10_000 },
        )
        .toBe(true);
      const [metrics] = (await api.get(`/v0/pages/${pageId}/analytics/audiences`)).body.items;
      expect(metrics).toMatchObject({
        audienceId,
        totalSessions: 1,
        avgScrollDepthPercentage: 100,
        bounceRate: 0,
        bounceCount: 0,
        bounceEligibleSessions: 1,
        conversionRate: 1,
        conversionCount: 1,
        ctaSessions: 1,
        formSubmitRate: 1,
        formSubmitCount: 1,
      });
      expect(metrics.avgInteractionsPerSession).toBeGreaterThanOrEqual(1);

      // Enrichment runs in the background; both form events reach the receiver, signed.
      await server.worker().drain();
      await server.worker().drain();
      const verifier = new Webhook(subscription.secret);
      const delivered = receiver.received.map((entry) =>
        verifier.verify(entry.body, entry.headers as Record<string, string>),
      ) as { type: string; data: Record<string, any> }[];
      expect(delivered.map((event) => event.type).sort()).toEqual(['form.enriched', 'form.submitted']);
      const submitted = delivered.find((event) => event.type === 'form.submitted');
      expect(submitted?.data).toMatchObject({ audienceId, pageId, email: 'jane@globex.example' });
      const enriched = delivered.find((event) => event.type === 'form.enriched');
      expect(enriched?.data.person).toMatchObject({ name: 'Jane Doe', email: 'jane@globex.example' });
      expect(enriched?.data.account).toMatchObject({ domain: 'globex.example' });
      await receiver.close();

      const mobile = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
      const phone = await mobile.newPage();
      await routeFileLinks(phone);
      await phone.goto(url, { waitUntil: 'load' });
      expect(await phone.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await phone.screenshot({ path: MOBILE_SCREENSHOT, fullPage: true });
      await mobile.close();
    },
    60_000,
  );
});
