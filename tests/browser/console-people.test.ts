import fs from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import {
  goTo,
  openConsole,
  outcomeOf,
  seriousViolations,
  settle,
  signIn,
  VIEWPORTS,
  type ViewportName,
} from '../helpers/console.ts';
import { png } from '../helpers/images.ts';
import { type LinkedPage, publishLinkedPage } from '../helpers/pages.ts';
import { type Client, ok, startServer, type TestServer } from '../helpers/server.ts';

/**
 * The console for people (decisions §11): errors in words with an example beside their field, a
 * conflict linking to what exists, limits stated before input and checked before an upload, the
 * outcome of a save beside the button pressed.
 */

const SHOTS = '/tmp/tailor-shots/people';

let server: TestServer;
let api: Client;
let browser: Browser;
let sam: { personId: string };
let site: LinkedPage;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  sam = await ok(api.post('/v0/persons', { name: 'Sam Lee', email: 'sam@initech.example' }), 201);
  site = await publishLinkedPage(server, api, {
    path: '/spring/sam',
    audience: { personId: sam.personId },
    personalize: false,
  });
  if (hasChromium) browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The field that holds the control labelled `label`. */
function field(page: Page, label: string): Locator {
  return page.locator('.field', { has: page.getByLabel(label, { exact: true }) });
}

/** The outcome sits beside its button: on its line, or right under it at a phone's width. */
async function expectBeside(page: Page, name: string): Promise<void> {
  const button = await page.locator(`button[type="submit"]:text-is("${name}")`).boundingBox();
  const outcome = await outcomeOf(page, name).boundingBox();
  expect(button && outcome).toBeTruthy();
  if (!button || !outcome) return;
  expect(Math.abs(outcome.y - button.y), 'vertical distance from the button').toBeLessThan(
    button.height + 24,
  );
}

/** No serious axe violation, and a screenshot of the view at `viewport` to look at. */
async function shoot(page: Page, name: string, viewport: ViewportName): Promise<void> {
  expect(await seriousViolations(page), `${name} at ${viewport}`).toEqual([]);
  expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}-${VIEWPORTS[viewport].width}.png`, fullPage: true });
}

describe.skipIf(!hasChromium)('the console for people in Chromium', () => {
  it('states the limits of each field before anything is typed, from the API schema', async () => {
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await goTo(page, '/persons/new');
    const phone = field(page, 'Phone number').locator('.limits');
    await expect
      .poll(() => phone.textContent())
      .toBe(
        'A phone number in international form (E.164) such as +14155550100: "+", the country code and the number, at most 15 digits, no spaces.',
      );
    expect(await field(page, 'Name').locator('.limits').textContent()).toBe('At most 255 characters.');
    const describedBy = (await page.getByLabel('Phone number').getAttribute('aria-describedby')) ?? '';
    expect(describedBy.split(' ')).toContain(await phone.getAttribute('id'));
    expect(await page.getByLabel('Phone number').inputValue()).toBe('');

    await goTo(page, '/pages/new');
    await expect
      .poll(() => field(page, 'URL').locator('.limits').textContent())
      .toMatch(/^A link such as https:\/\/acme\.com\/demo: /);
    // A list of choices is its own limit: nothing is said under it.
    expect(await field(page, 'Header button').locator('.limits').count()).toBe(0);
    await shoot(page, 'page-form-limits', 'desktop');

    await goTo(page, `/pages/${site.pageId}/audiences/new`);
    await expect
      .poll(() => field(page, 'Holdout (%)').locator('.limits').textContent())
      .toBe('A whole number from 0 to 50.');
    await goTo(page, `/pages/${site.pageId}/audiences/${site.audienceId}`);
    await expect
      .poll(() => field(page, 'Link path').locator('.limits').textContent())
      .toMatch(
        /^A path such as \/platform\/tom-becker: .*capitals are lowercased\. At most 512 characters\.$/,
      );
    await goTo(page, '/brands/new');
    await expect
      .poll(() => field(page, 'Primary').locator('.limits').textContent())
      .toBe('A colour such as #3730a3: "#" and six hexadecimal digits (0-9, a-f).');
    await expect
      .poll(() => field(page, 'Brand id').locator('.limits').textContent())
      .toBe("A brand id such as acme-retail: 1 to 64 letters, digits, '.', '_' or '-', but not '.' or '..'.");
    await expect
      .poll(() => field(page, 'Upload a logo').locator('.hint').textContent())
      .toBe('PNG, JPEG, GIF, WebP or SVG, at most 10 MiB.');
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    it(`explains a pattern in words with its example beside its field, and the outcome beside the button (${viewport})`, async () => {
      const { page, cspViolations } = await openConsole(browser, server.url, viewport);
      await signIn(page, api.apiKey as string);
      await goTo(page, '/persons/new');
      await page.getByLabel('Name', { exact: true }).fill('Ada Park');
      await page.getByLabel('Phone number').fill('call me');
      await page.getByRole('button', { name: 'Create the person' }).click();
      const error = field(page, 'Phone number').locator('.field-error');
      await expect
        .poll(() => error.textContent())
        .toBe(
          'must be a phone number in international form (E.164) such as +14155550100: "+", the country code and the number, at most 15 digits, no spaces',
        );
      expect(await page.getByLabel('Phone number').getAttribute('aria-invalid')).toBe('true');
      expect(await outcomeOf(page, 'Create the person').textContent()).toBe(
        'Not saved. Correct the field marked.',
      );
      // Nothing is said twice: the field has the words, the button the outcome, the top nothing.
      expect(await page.locator('.problem').count()).toBe(0);
      await expectBeside(page, 'Create the person');
      await shoot(page, 'pattern-error', viewport);

      await page.getByLabel('Phone number').fill('+442071838750');
      await page.getByRole('button', { name: 'Create the person' }).click();
      await page.getByRole('heading', { name: 'Ada Park', level: 1 }).waitFor();
      expect(cspViolations).toEqual([]);
      await page.close();
    });

    it(`links a conflict to the person who has the email, and opens them (${viewport})`, async () => {
      const { page, cspViolations } = await openConsole(browser, server.url, viewport);
      await signIn(page, api.apiKey as string);
      await goTo(page, '/persons/new');
      await page.getByLabel('Name', { exact: true }).fill('Samuel Lee');
      await page.getByLabel('Email').fill('SAM@initech.example');
      await page.getByRole('button', { name: 'Create the person' }).click();
      const outcome = outcomeOf(page, 'Create the person');
      const holder = outcome.getByRole('link', { name: 'Sam Lee' });
      await holder.waitFor();
      expect(await outcome.textContent()).toBe('Not saved. A person with this email already exists: Sam Lee');
      expect(await outcome.textContent()).not.toContain('person_');
      await expectBeside(page, 'Create the person');
      await shoot(page, 'conflict-link', viewport);
      await holder.click();
      await page.getByRole('heading', { name: 'Sam Lee', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/console/persons/${sam.personId}`);
      expect(cspViolations).toEqual([]);
      await page.close();
    });
  }

  it('takes a link path as the words say: refused in words, capitals lowercased, a taken one linked to its holder', async () => {
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await goTo(page, `/pages/${site.pageId}/audiences/${site.audienceId}`);
    await page.getByLabel('Link path').fill('platform tom');
    await page.getByRole('button', { name: 'Create link' }).click();
    await expect
      .poll(() => field(page, 'Link path').locator('.field-error').textContent())
      .toMatch(/^must be a path such as \/platform\/tom-becker: /);
    await shoot(page, 'link-path-error', 'desktop');

    await page.getByLabel('Link path').fill('/Platform/Tom-Becker');
    await page.getByRole('button', { name: 'Create link' }).click();
    await expect.poll(() => outcomeOf(page, 'Create link').textContent()).toBe('Link created.');
    await page.getByText('/platform/tom-becker', { exact: true }).first().waitFor();

    await page.getByLabel('Link path').fill('/spring/sam');
    await page.getByRole('button', { name: 'Create link' }).click();
    const holder = outcomeOf(page, 'Create link').getByRole('link', {
      name: /^\/spring\/sam \(Spring launch › /,
    });
    await holder.waitFor();
    expect(await holder.getAttribute('href')).toBe(
      `/console/pages/${site.pageId}/audiences/${site.audienceId}`,
    );
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('refuses a file too large or of another type before sending anything, and uploads one that fits', async () => {
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await goTo(page, '/brands/new');
    const uploads: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/v0/files')) uploads.push(request.method());
    });
    const input = page.getByLabel('Upload a logo');
    const outcome = field(page, 'Upload a logo').locator('[role="status"]');
    await expect.poll(() => input.isEnabled()).toBe(true);

    const big = Buffer.concat([png(), Buffer.alloc(12 * 1024 * 1024)]);
    await input.setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: big });
    await expect
      .poll(() => outcome.textContent())
      .toBe('Not uploaded: big.png is 12 MiB: the largest file is 10 MiB.');
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    await shoot(page, 'upload-refused', 'desktop');
    await input.setInputFiles({
      name: 'brochure.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.4'),
    });
    await expect
      .poll(() => outcome.textContent())
      .toBe('Not uploaded: brochure.pdf is application/pdf: choose a PNG, JPEG, GIF, WebP or SVG file.');
    await settle(page);
    expect(uploads).toEqual([]);

    await input.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png(20, 80, 200) });
    await expect.poll(() => outcome.textContent()).toBe('Uploaded: save the brand to keep it.');
    expect(uploads).toEqual(['POST']);
    expect(await input.getAttribute('aria-invalid')).toBeNull();
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('says the outcome of a save beside the button pressed, announced, until the form is edited again', async () => {
    const accountId = (await ok(api.get('/v0/accounts/search?query=initech'))).items[0].accountId;
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await goTo(page, `/accounts/${accountId}`);
    await page.getByLabel('Company name').fill('Initech Corporation');
    await page.getByRole('button', { name: 'Rename' }).click();
    const renamed = outcomeOf(page, 'Rename');
    await expect.poll(() => renamed.textContent()).toBe('Renamed.');
    expect(await renamed.getAttribute('role')).toBe('status');
    await expectBeside(page, 'Rename');
    await page.getByLabel('Company name').fill('Initech Inc.');
    await expect.poll(() => renamed.textContent()).toBe('');

    // The browser keeps a number out of the input's range from being sent at all (min and max);
    // one in range is saved, and the form says so beside its button.
    await goTo(page, `/pages/${site.pageId}/audiences/${site.audienceId}`);
    const patches: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PATCH') patches.push(request.url());
    });
    await page.getByLabel('Holdout (%)').fill('60');
    await page.getByRole('button', { name: 'Save holdout' }).click();
    expect(
      await page
        .getByLabel('Holdout (%)')
        .evaluate(
          (input) => (input as unknown as { validity: { rangeOverflow: boolean } }).validity.rangeOverflow,
        ),
    ).toBe(true);
    expect(patches).toEqual([]);
    await page.getByLabel('Holdout (%)').fill('20');
    await page.getByRole('button', { name: 'Save holdout' }).click();
    await expect.poll(() => outcomeOf(page, 'Save holdout').textContent()).toBe('Saved.');
    expect((await ok(api.get(`/v0/pages/${site.pageId}/audiences/${site.audienceId}`))).holdoutPercent).toBe(
      20,
    );
    expect(cspViolations).toEqual([]);
    await page.close();
  });
});
