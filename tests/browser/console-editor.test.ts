import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import {
  checkView,
  errorOf,
  expectNoWriteControl,
  limitsOf,
  openConsole,
  outcomeOf,
  requestsSent,
  settle,
  signIn,
  VIEWPORTS,
  type ViewportName,
} from '../helpers/console.ts';
import { type LinkedPage, publishLinkedPage } from '../helpers/pages.ts';
import { type Client, ok, startServer, type TestServer } from '../helpers/server.ts';

/**
 * A draft's copy edited beside its preview and published from there
 * (console/src/views/audiences/copy-editor.tsx), in Chromium against a live server.
 */

const CONTEXT = 'Maya worries that her board will cut the budget in June.';
/** Screenshots to look at as a marketer would. */
const SHOTS = '/tmp/tailor-shots/editor';

let server: TestServer;
let api: Client;
let browser: Browser;
let made = 0;

interface Draft extends LinkedPage {
  /** The audience's API path. */
  base: string;
  versionId: string;
  /** The console path of the draft's preview. */
  view: string;
}

/** A published page served at a link, its audience for a person, and version 1 generated: a draft. */
async function draft(): Promise<Draft> {
  made += 1;
  const person = await ok(
    api.post('/v0/persons', { name: 'Maya Chen', email: `maya${made}@northwind.example` }),
    201,
  );
  const linked = await publishLinkedPage(server, api, {
    personalize: false,
    audience: { personId: person.personId, supplementaryContext: CONTEXT },
    path: `/editor-${made}`,
  });
  const base = `/v0/pages/${linked.pageId}/audiences/${linked.audienceId}`;
  const { latestVersion } = await ok(api.get(base));
  await server.worker().drain();
  const view = `/pages/${linked.pageId}/audiences/${linked.audienceId}/versions/${latestVersion.versionId}`;
  return { ...linked, base, versionId: latestVersion.versionId, view };
}

/**
 * The whole page as a marketer would look at it: the viewport made as tall as the page first, as a
 * full-page shot leaves the previews' frames unpainted below the fold.
 */
async function shoot(page: Page, name: string): Promise<void> {
  const size = page.viewportSize() ?? VIEWPORTS.desktop;
  const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
  await page.setViewportSize({ width: size.width, height });
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
  await page.setViewportSize(size);
}

/** A draft whose copy was edited through the API: `content` holds the parts edited. */
async function editedDraft(content: Record<string, string>): Promise<Draft> {
  const sample = await draft();
  await ok(api.patch(`${sample.base}/versions/${sample.versionId}`, { content }));
  return sample;
}

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  if (hasChromium) browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Opens `view` in a signed-in tab and waits for the version's preview. */
async function openPreview(view: string, apiKey = api.apiKey as string, viewport: ViewportName = 'desktop') {
  const tab = await openConsole(browser, server.url, viewport);
  await signIn(tab.page, apiKey);
  await tab.page.goto(`${server.url}/console${view}`);
  await versionFrame(tab.page).locator('h1').waitFor();
  return tab;
}

/** The version's preview: the first frame (the baseline is the second). */
function versionFrame(page: Page) {
  return page.frameLocator('iframe').first();
}

describe.skipIf(!hasChromium)('the copy editor in Chromium', () => {
  it('saves an edit, which the preview shows, refuses a part beside its field, and publishes from there', async () => {
    const sample = await draft();
    const { page, cspViolations } = await openPreview(sample.view);
    const before = await ok(api.get(`${sample.base}/versions/${sample.versionId}`));
    expect(await page.getByLabel('Headline', { exact: true }).inputValue()).toBe(before.content.headline);
    expect(await page.getByText('Edited').count()).toBe(0);

    // An edit the check refuses: its reason is shown beside the part, and nothing is saved.
    await page.getByLabel('Headline', { exact: true }).fill('Spring pages for Northwind, in a day');
    await page.getByRole('button', { name: 'Add another section' }).click();
    const last = before.content.sections.length;
    await page.getByLabel('Heading', { exact: true }).nth(last).fill('Read more');
    await page
      .getByLabel('Body', { exact: true })
      .nth(last)
      .fill('Our story is [here](https://elsewhere.example/story).');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(() => outcomeOf(page, 'Save').textContent())
      .toBe('Not saved. Correct the field marked.');
    expect(await errorOf(page, 'Body', last)).toContain(
      "links to https://elsewhere.example/story, which is not one of the page's actions",
    );
    expect(await page.getByLabel('Headline', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    expect((await ok(api.get(`${sample.base}/versions/${sample.versionId}`))).editedAt).toBeNull();

    // Fixed, saved: the preview shows the edit, and when it was made.
    await page
      .getByLabel('Body', { exact: true })
      .nth(last)
      .fill('Our story, **in short**: [book a demo](https://example.com/demo).');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await versionFrame(page).getByRole('heading', { name: 'Spring pages for Northwind, in a day' }).waitFor();
    await versionFrame(page).locator('strong', { hasText: 'in short' }).waitFor();
    await page.locator('figcaption', { hasText: 'Edited' }).waitFor();
    const saved = await ok(api.get(`${sample.base}/versions/${sample.versionId}`));
    expect(saved.editedAt).not.toBeNull();
    expect(saved.content.headline).toBe('Spring pages for Northwind, in a day');
    expect(saved.content.sections.at(-1)).toEqual({
      heading: 'Read more',
      body: 'Our story, **in short**: [book a demo](https://example.com/demo).',
    });
    expect(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);

    // An unsaved change is saved before publishing.
    await page.getByLabel('Subheadline').fill('Launch pages in days, not weeks.');
    await page.getByRole('button', { name: 'Save and publish version 1' }).click();
    await page.getByRole('status').filter({ hasText: 'Version 1 is published' }).waitFor();
    expect(await page.getByRole('button', { name: /publish|save/i }).count()).toBe(0);
    await page.locator('figcaption', { hasText: 'Version 1 (published)' }).waitFor();
    const published = await ok(api.get(sample.base));
    expect(published.publishedVersion.versionId).toBe(sample.versionId);
    const live = await server.visitor().get(sample.url);
    expect(live.status).toBe(200);
    expect(live.body).toContain('Spring pages for Northwind, in a day');
    expect(live.body).toContain('Launch pages in days, not weeks.');
    expect(live.body).toContain('<strong>in short</strong>');
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 60_000);

  it('adds, moves and removes sections, never more than four, and saves them in their order', async () => {
    const sample = await draft();
    const { page } = await openPreview(sample.view);
    const headings = page.getByLabel('Heading', { exact: true });
    const bodies = page.getByLabel('Body', { exact: true });
    // Four sections at most: the fourth leaves no "Add" button.
    while ((await headings.count()) < 4) {
      const at = await headings.count();
      await page.getByRole('button', { name: /^Add (a|another) section$/ }).click();
      await headings.nth(at).fill(`Step ${at + 1}`);
      await bodies.nth(at).fill(`Book a demo, step ${at + 1}.`);
    }
    expect(await page.getByRole('button', { name: /^Add/ }).count()).toBe(0);
    await page.getByText('As many sections as a page may have: remove one to add another.').waitFor();

    const wanted = await Promise.all([0, 1, 2, 3].map((index) => headings.nth(index).inputValue()));
    await page.getByRole('button', { name: 'Move section 4 up' }).click();
    // Focus follows the moved section.
    await expect.poll(() => page.evaluate('document.activeElement.textContent')).toBe('Move section 3 up');
    await page.getByRole('button', { name: 'Move section 1 down' }).click();
    await page.getByRole('button', { name: 'Remove section 4' }).click();
    const order = [wanted[1], wanted[0], wanted[3]];
    expect(await Promise.all([0, 1, 2].map((index) => headings.nth(index).inputValue()))).toEqual(order);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const saved = await ok(api.get(`${sample.base}/versions/${sample.versionId}`));
    expect(saved.content.sections.map((section: { heading: string }) => section.heading)).toEqual(order);
    await expect
      .poll(() => versionFrame(page).locator('main h2, section h2').allTextContents())
      .toEqual(expect.arrayContaining(order));
    await page.close();
  }, 60_000);

  it('offers no publishing of a draft that a newer version follows, and says so', async () => {
    const sample = await draft();
    const newer = await ok(api.post(`${sample.base}/versions`), 201);
    const { page } = await openPreview(sample.view);
    await page.getByText(`Version ${newer.latestVersion.versionNumber} is newer`).waitFor();
    expect(await page.getByRole('button', { name: /publish/i }).count()).toBe(0);
    // It can still be edited: it is a draft.
    await page.getByLabel('Headline', { exact: true }).fill('Northwind, a second take');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect((await ok(api.get(`${sample.base}/versions/${sample.versionId}`))).content.headline).toBe(
      'Northwind, a second take',
    );
    await page.close();
  }, 60_000);

  it('publishes nothing when a newer version was made after the preview opened', async () => {
    const sample = await draft();
    const { page } = await openPreview(sample.view);
    await page.getByRole('button', { name: 'Publish version 1' }).waitFor();
    await ok(api.post(`${sample.base}/versions`), 201);
    await page.getByRole('button', { name: 'Publish version 1' }).click();
    await page.getByText('Version 2 is newer').waitFor();
    const audience = await ok(api.get(sample.base));
    expect(audience.publishedVersion.versionNumber).toBe(0);
    await page.close();
  }, 60_000);

  it('shows a read-only key the draft beside the baseline, with no editor', async () => {
    const sample = await draft();
    const readOnly = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    const { page, cspViolations } = await openPreview(sample.view, readOnly.apiKey);
    await settle(page);
    expect(await page.locator('iframe').count()).toBe(2);
    await expectNoWriteControl(page, sample.view);
    expect(await page.getByLabel('Headline', { exact: true }).count()).toBe(0);
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 60_000);

  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    it(`states the limits the API advertises before input, and sends nothing over them (${viewport})`, async () => {
      const sample = await draft();
      const { page, cspViolations } = await openPreview(sample.view, api.apiKey as string, viewport);
      await expect.poll(() => limitsOf(page, 'Headline').textContent()).toBe('At most 90 characters.');
      expect(await limitsOf(page, 'Subheadline').textContent()).toBe('At most 300 characters.');
      expect(await limitsOf(page, 'Heading').textContent()).toBe('At most 1,000 characters.');
      expect(await limitsOf(page, 'Body').textContent()).toBe('At most 65,536 characters.');
      await page.getByText('Shown in this order, below the headline. At most 4 sections.').waitFor();

      const patches = requestsSent(page, 'PATCH');
      const long =
        'Spring pages for every store of Northwind Outfitters, launched in a day, on brand, everywhere';
      const count = page.getByText(`${[...long].length} characters: ${[...long].length - 90} over the limit`);
      await page.getByLabel('Headline', { exact: true }).fill(long);
      await count.waitFor();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      // Refused before sending, in the words the API would use, beside the field and the button.
      expect(await errorOf(page, 'Headline')).toBe(
        `must have at most 90 characters (it has ${[...long].length})`,
      );
      expect(await outcomeOf(page, 'Save').textContent()).toBe('Not saved. Correct the field marked.');
      expect(await page.locator('.problem').count()).toBe(0);
      expect(patches).toEqual([]);
      expect((await ok(api.get(`${sample.base}/versions/${sample.versionId}`))).editedAt).toBeNull();
      await page.getByLabel('Headline', { exact: true }).focus();
      await shoot(page, `headline-refused-${VIEWPORTS[viewport].width}`);

      // Publishing saves first, so it is refused the same way, beside its own button.
      await page.getByRole('button', { name: 'Save and publish version 1' }).click();
      await expect
        .poll(() => outcomeOf(page, 'Save and publish version 1').textContent())
        .toBe('Not saved. Correct the field marked.');
      expect(await outcomeOf(page, 'Save').textContent()).toBe('');
      expect(patches).toEqual([]);
      expect((await ok(api.get(sample.base))).publishedVersion.versionNumber).toBe(0);
      expect(cspViolations).toEqual([]);
      await page.close();
    }, 60_000);
  }

  it("offers the page's actions as link targets, and inserts one at the words selected", async () => {
    const sample = await draft();
    const { page } = await openPreview(sample.view);
    const first = page.getByRole('group', { name: /^Link section 1 to one of the page's actions/ });
    expect(await first.getByRole('button').allTextContents()).toEqual(['Book a demo']);
    // The form has no address: it is named as one that cannot be linked.
    expect(await first.locator('legend').textContent()).toContain('“Talk to sales” has no address');
    const body = page.getByLabel('Body', { exact: true }).first();
    await body.fill('See it working on your own stores.');
    await body.evaluate((area: any) => area.setSelectionRange(0, 14));
    await first.getByRole('button', { name: 'Book a demo' }).click();
    expect(await body.inputValue()).toBe('[See it working](https://example.com/demo) on your own stores.');
    await expect
      .poll(() => body.evaluate((area: any) => area.ownerDocument.activeElement === area))
      .toBe(true);
    await body.evaluate((area: any) => area.setSelectionRange(area.value.length, area.value.length));
    await first.getByRole('button', { name: 'Book a demo' }).click();
    expect(await body.inputValue()).toBe(
      '[See it working](https://example.com/demo) on your own stores.[Book a demo](https://example.com/demo)',
    );
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    // The outcome shows beside the button that was pressed.
    await expect.poll(() => outcomeOf(page, 'Save').textContent()).toBe('Saved: the preview shows the edit.');
    const saved = await ok(api.get(`${sample.base}/versions/${sample.versionId}`));
    expect(saved.content.sections[0].body).toContain('[See it working](https://example.com/demo)');
    await versionFrame(page).getByRole('link', { name: 'See it working' }).waitFor();
    await page.close();
  }, 60_000);

  it('says a draft was written without a language model, and links to how to connect one', async () => {
    const sample = await draft();
    const version = await ok(api.get(`${sample.base}/versions/${sample.versionId}`));
    expect(version.generatedBy).toBe('built-in');
    for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
      const { page, cspViolations } = await openPreview(sample.view, api.apiKey as string, viewport);
      const note = page.locator('.built-in-note');
      await note.getByText('Written without a language model.').waitFor();
      expect(await note.textContent()).toContain('TAILOR_LLM_BASE_URL');
      const guide = note.getByRole('link', { name: 'Connecting a language model' });
      expect(await guide.getAttribute('href')).toBe('/guides/personalization#connecting-a-language-model');
      await checkView(page, 'editor-built-in', viewport);
      for (const frame of [0, 1]) await page.frameLocator('iframe').nth(frame).locator('h1').waitFor();
      await shoot(page, `draft-no-model-${viewport}`);
      // The audience's versions say it too.
      await page.goto(`${server.url}/console/pages/${sample.pageId}/audiences/${sample.audienceId}`);
      await page.getByText('Written without a language model:').first().waitFor();
      expect(cspViolations).toEqual([]);
      await page.close();
    }
    // The guide it links to is served by this server, with no script.
    const guide = await server.anonymous().get('/guides/personalization');
    expect(guide.status).toBe(200);
    expect(guide.body).not.toContain('<script');
  }, 90_000);

  it('asks before a new version strands edits, and carries them into it once it is a draft', async () => {
    const sample = await editedDraft({ headline: 'Northwind, your spring pages in a day' });
    for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
      const { page } = await openPreview(sample.view, api.apiKey as string, viewport);
      await page.goto(`${server.url}/console/pages/${sample.pageId}/audiences/${sample.audienceId}`);
      await page.getByRole('button', { name: 'Generate a new version' }).click();
      const question = page.locator('.generate-question');
      await question.getByText('Version 1 has edits that are not published.').waitFor();
      await expect
        .poll(() => page.evaluate('document.activeElement.textContent'))
        .toBe('Generate and carry my edits');
      await checkView(page, 'generate-question', viewport);
      await shoot(page, `generate-question-${viewport}`);
      // Keeping the draft makes nothing.
      await page.getByRole('button', { name: 'Keep version 1' }).click();
      expect(await question.count()).toBe(0);
      await page.close();
    }
    expect((await ok(api.get(sample.base))).latestVersion.versionNumber).toBe(1);

    const { page, cspViolations } = await openPreview(sample.view);
    await page.goto(`${server.url}/console/pages/${sample.pageId}/audiences/${sample.audienceId}`);
    await page.getByRole('button', { name: 'Generate a new version' }).click();
    await page.getByRole('button', { name: 'Generate and carry my edits' }).click();
    await page.getByText("version 1's edits go into it once it is a draft").waitFor();
    await server.worker().drain();
    await page.getByText("Version 1's edits are in version 2.").waitFor({ timeout: 15_000 });
    const audience = await ok(api.get(sample.base));
    expect(audience.latestVersion.versionNumber).toBe(2);
    const carried = await ok(api.get(`${sample.base}/versions/${audience.latestVersion.versionId}`));
    expect(carried.state).toBe('draft');
    expect(carried.editedAt).not.toBeNull();
    expect(carried.content.headline).toBe('Northwind, your spring pages in a day');
    await page.getByRole('link', { name: 'Open version 2' }).click();
    await page.getByRole('heading', { name: 'Version 2 beside the baseline' }).waitFor();
    expect(await page.getByLabel('Headline', { exact: true }).inputValue()).toBe(
      'Northwind, your spring pages in a day',
    );
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 120_000);

  it('generates at once when the latest draft has no edit, and without them when asked to', async () => {
    const sample = await draft();
    const { page } = await openPreview(sample.view);
    await page.goto(`${server.url}/console/pages/${sample.pageId}/audiences/${sample.audienceId}`);
    await page.getByRole('button', { name: 'Generate a new version' }).click();
    await expect.poll(async () => (await ok(api.get(sample.base))).latestVersion.versionNumber).toBe(2);
    expect(await page.locator('.generate-question').count()).toBe(0);
    await server.worker().drain();
    const second = (await ok(api.get(sample.base))).latestVersion.versionId;
    await ok(api.patch(`${sample.base}/versions/${second}`, { content: { headline: 'Kept in version 2' } }));
    await page.reload();
    await page.getByRole('button', { name: 'Generate a new version' }).click();
    await page.getByRole('button', { name: 'Generate without my edits' }).click();
    await expect.poll(async () => (await ok(api.get(sample.base))).latestVersion.versionNumber).toBe(3);
    await server.worker().drain();
    const third = await ok(
      api.get(`${sample.base}/versions/${(await ok(api.get(sample.base))).latestVersion.versionId}`),
    );
    expect(third.editedAt).toBeNull();
    expect(third.content.headline).not.toBe('Kept in version 2');
    await page.close();
  }, 90_000);

  it('offers an edited draft that a newer one follows to carry its edits forward', async () => {
    const sample = await editedDraft({ subheadline: 'Pages for each store, ready by Monday.' });
    const newer = await ok(api.post(`${sample.base}/versions`), 201);
    const { page } = await openPreview(sample.view);
    await page.getByText('Version 2 is newer').waitFor();
    await page.getByRole('button', { name: 'Carry these edits into version 2' }).click();
    await page.getByText('Waiting for version 2 to be generated…').waitFor();
    await server.worker().drain();
    await page.getByText("Version 1's copy is in version 2 now.").waitFor({ timeout: 15_000 });
    const carried = await ok(api.get(`${sample.base}/versions/${newer.latestVersion.versionId}`));
    expect(carried.content.subheadline).toBe('Pages for each store, ready by Monday.');
    // A newer version that is not edited offers nothing to carry back.
    await page.getByRole('link', { name: 'Open version 2' }).click();
    await page.getByRole('heading', { name: 'Version 2 beside the baseline' }).waitFor();
    expect(await page.getByRole('button', { name: /^Carry/ }).count()).toBe(0);
    await page.close();
  }, 90_000);

  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    it(`shows the editor at ${viewport} width without sideways scroll or a serious axe-core violation`, async () => {
      const sample = await draft();
      const { page, cspViolations } = await openPreview(sample.view, api.apiKey as string, viewport);
      await page.frameLocator('iframe').nth(1).locator('h1').waitFor();
      await checkView(page, 'editor', viewport);
      // With a refused part, its error beside it.
      await page.getByLabel('Headline', { exact: true }).fill('Spring pages, **fast**');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      expect(await errorOf(page, 'Headline')).toContain('shows markup');
      await checkView(page, 'editor-refused', viewport);
      expect(cspViolations).toEqual([]);
      await page.close();
    }, 60_000);
  }
});
