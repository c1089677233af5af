import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import { renderMarkdown } from '../../src/shared/markdown-html.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { hasChromium, launchChromium } from '../helpers/browser.ts';
import {
  brokenWords,
  cell,
  checkView,
  errorOf,
  expectNoWriteControl,
  goTo,
  limitsOf,
  openConsole,
  outcomeOf,
  requestsSent,
  row,
  settle,
  signIn,
  VIEWPORTS,
  type ViewportName,
} from '../helpers/console.ts';
import { HOSTILE_ENTRY } from '../helpers/hostile-entry.ts';
import { type LinkedPage, publishLinkedPage, SAMPLE_PAGE } from '../helpers/pages.ts';
import { type Client, ok, startServer, type TestServer } from '../helpers/server.ts';

/**
 * The marketer's knowledge and what the console names (issue 22): topics with their entries'
 * markdown previewed, page links by their page and audience, the live page, a person's pages, widget
 * kinds, why a version ended, brand names whole on a small phone.
 */

let server: TestServer;
let api: Client;
let browser: Browser;
/** A published page of brand acme for Sam Lee, personalized and linked at /spring/sam. */
let sample: LinkedPage;
let personId: string;
/** A draft page with an audience for Sam Lee: not served yet. */
let draftPageId: string;
/** A topic scoped to the brand with the long name, with a markdown entry. */
let storiesId: string;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  await ok(api.request('PUT', '/v0/brands/acme', { body: { name: 'Acme Retail' } }), 201);
  await ok(
    api.request('PUT', '/v0/brands/northwind', { body: { name: 'Northwind Outfitters Internationale' } }),
    201,
  );
  const sam = await ok(api.post('/v0/persons', { name: 'Sam Lee', email: 'sam@initech.example' }), 201);
  personId = sam.personId;
  const account = (await ok(api.get('/v0/accounts/search?query=initech'))).items[0];
  await ok(api.patch(`/v0/accounts/${account.accountId}`, { name: 'Initech' }));
  sample = await publishLinkedPage(server, api, { path: '/spring/sam', audience: { personId } });
  const draft = await ok(
    api.post('/v0/pages', { ...SAMPLE_PAGE, name: 'Winter preview', brandId: 'northwind' }),
    201,
  );
  draftPageId = draft.pageId;
  await ok(api.post(`/v0/pages/${draftPageId}/audiences`, { personId }), 201);
  await ok(
    api.post('/v0/topics', {
      title: 'Pricing',
      purpose: 'What plans cost.',
      isDefault: true,
    }),
    201,
  );
  const stories = await ok(
    api.post('/v0/topics', {
      title: 'Customer stories',
      purpose: 'Results retailers got; draw on them when the audience is a retailer.',
      brandIds: ['northwind', 'acme'],
    }),
    201,
  );
  storiesId = stories.topicId;
  await ok(
    api.post(`/v0/topics/${storiesId}/entries`, {
      content: {
        type: 'markdown',
        content:
          '**Northwind Outfitters** raised booked demos by *38%* in six weeks.\n\n- a page per account\n- no new tools',
      },
    }),
    201,
  );
  if (hasChromium) browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe.skipIf(!hasChromium)('topics, names and live pages in the console', () => {
  it('makes a topic scoped to a brand, writes an entry with a live preview of its markdown, and edits both', async () => {
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await page.getByRole('link', { name: 'Topics' }).click();
    await page.getByRole('link', { name: 'New topic' }).click();

    // The limits are stated before input; a title over them is refused before it is sent, in the
    // API's words beside the field, the outcome beside the button.
    await expect.poll(() => limitsOf(page, 'Title').textContent()).toBe('At most 255 characters.');
    expect(await limitsOf(page, 'Purpose').textContent()).toBe('At most 2,000 characters.');
    const posts = requestsSent(page, 'POST');
    await page.getByLabel('Title').fill('x'.repeat(256));
    await page.getByRole('button', { name: 'Create the topic' }).click();
    expect(await errorOf(page, 'Title')).toBe('must have at most 255 characters (it has 256)');
    expect(await outcomeOf(page, 'Create the topic').textContent()).toBe(
      'Not saved. Correct the field marked.',
    );
    expect(posts).toEqual([]);

    await page.getByLabel('Title').fill('Security answers');
    await page.getByLabel('Purpose').fill('What security reviews ask.');
    await page.getByLabel('Only for the pages of these brands:').check();
    await page.getByLabel('Acme Retail').check();
    await page.getByRole('button', { name: 'Create the topic' }).click();
    await page.getByRole('heading', { name: 'Security answers', level: 1, exact: true }).waitFor();
    await page.getByRole('link', { name: 'Acme Retail' }).waitFor();
    const topicId = page.url().split('/').pop() as string;
    expect((await ok(api.get(`/v0/topics/${topicId}`))).brandIds).toEqual(['acme']);

    // The preview follows the text as it is typed, in the page's markdown subset.
    const text = [
      'We are **SOC 2** audited, *every year*.',
      '',
      '- SSO with SAML',
      '- [Our trust page](https://trust.example/)',
      '',
      '# A heading <b>with markup</b>',
      '',
      '[not a web link](javascript:alert(1)) <img src=x onerror=alert(1)>',
    ].join('\n');
    const newEntry = page.getByRole('group', { name: 'New entry' });
    await newEntry.getByLabel('Text').fill(text);
    const preview = page.getByRole('region', { name: 'Preview of new entry' });
    await preview.locator('strong', { hasText: 'SOC 2' }).waitFor();
    expect(await preview.locator('em').textContent()).toBe('every year');
    expect(await preview.locator('.markdown li').allTextContents()).toEqual([
      'SSO with SAML',
      'Our trust page',
    ]);
    const link = preview.getByRole('link', { name: 'Our trust page' });
    expect(await link.getAttribute('href')).toBe('https://trust.example/');
    // A link of the preview opens apart, and the console (with the text typed) stays; no request leaves.
    await page.context().route('https://trust.example/**', (route) => route.fulfill({ body: 'Trust' }));
    const [trust] = await Promise.all([page.waitForEvent('popup'), link.click()]);
    await trust.waitForLoadState();
    expect(trust.url()).toBe('https://trust.example/');
    expect(await trust.evaluate('window.opener')).toBeNull();
    await trust.close();
    expect(await newEntry.getByLabel('Text').inputValue()).toBe(text);
    // A heading reads as a bold paragraph, raw HTML is dropped, a link to script is its text.
    expect(await preview.locator('p > strong', { hasText: 'A heading' }).textContent()).toBe(
      'A heading with markup',
    );
    expect(await preview.locator('b, img, h1, a[href^="javascript:" i]').count()).toBe(0);
    await preview.getByText('not a web link').waitFor();
    expect(await preview.locator('.markdown').textContent()).not.toMatch(/\*\*|<b>|# /);

    await page.getByRole('button', { name: 'Add the entry' }).click();
    const entry = page.getByRole('article', { name: 'Entry 1' });
    await entry.locator('strong', { hasText: 'SOC 2' }).waitFor();
    const stored = await ok(api.get(`/v0/topics/${topicId}`));
    expect(stored.entries.map((item: any) => item.content)).toEqual([{ type: 'markdown', content: text }]);

    await entry.getByRole('button', { name: 'Edit entry 1' }).click();
    await expect.poll(() => page.evaluate('document.activeElement.tagName')).toBe('TEXTAREA');
    const editor = page.getByRole('group', { name: 'Entry 1' });
    await editor.getByLabel('Text').fill('Audited *twice* a year.');
    await editor.getByLabel('Format').selectOption('text');
    await page
      .getByRole('region', { name: 'Preview of entry 1' })
      .locator('em', { hasText: 'twice' })
      .waitFor();
    await page.getByRole('button', { name: 'Save entry 1' }).click();
    await entry.locator('em', { hasText: 'twice' }).waitFor();
    await expect.poll(() => page.evaluate('document.activeElement.textContent')).toBe('Edit entry 1');
    expect((await ok(api.get(`/v0/topics/${topicId}`))).entries[0].content).toEqual({
      type: 'text',
      content: 'Audited *twice* a year.',
    });

    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByLabel('Shared by every brand').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Security answers', level: 1, exact: true }).waitFor();
    await page.getByText('Shared by every brand').waitFor();
    const saved = await ok(api.get(`/v0/topics/${topicId}`));
    expect(saved).toMatchObject({ brandIds: [], purpose: 'What security reviews ask.', isDefault: false });

    // The list is searched in entries too, and names brands by their names.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Topics' }).click();
    await page.getByLabel('Search topics').fill('booked demos');
    await expect.poll(() => page.locator('table tbody tr').count()).toBe(1);
    const stories = row(page, 'Topics', 'Customer stories');
    expect(await cell(stories, 'Brands')).toContain('Northwind Outfitters Internationale');
    expect(await cell(stories, 'Brands')).toContain('Acme Retail');
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('previews an entry exactly as the version preview and the served page show it, and says before saving what a page changes', async () => {
    // A version whose copy holds the hostile entry as it is, as stored copy may (an edit through the
    // API would be refused for its links elsewhere than the page's actions; a page shows them as text).
    const linked = await publishLinkedPage(server, api, {
      page: { name: 'One rendering' },
      path: '/knowledge/one-rendering',
    });
    await anyTables(server.database)
      .updateTable('audience_versions')
      .set({
        content: JSON.stringify({
          headline: 'One rendering',
          subheadline: '',
          sections: [{ heading: 'Results', body: HOSTILE_ENTRY }],
          actions: [],
          metadata: {},
        }),
      })
      .where('audience_id', '=', linked.audienceId)
      .execute();
    const versions = `/v0/pages/${linked.pageId}/audiences/${linked.audienceId}/versions`;
    const published = (await ok(api.get(versions))).items.find(
      (version: any) => version.state === 'published',
    );
    const versionPreview = await api.get(`${versions}/${published.versionId}/preview`);
    expect(versionPreview.status).toBe(200);
    const served = await fetch(`${server.pagesUrl}${linked.url}`);
    expect(served.status).toBe(200);
    /** The HTML of the section's body on a page, after its heading. */
    const sectionOf = (html: string) => {
      const start = html.indexOf('<h2>Results</h2>') + '<h2>Results</h2>'.length;
      return html.slice(start, html.indexOf('</article>', start));
    };

    const topic = await ok(api.post('/v0/topics', { title: 'Hostile knowledge' }), 201);
    await ok(
      api.post(`/v0/topics/${topic.topicId}/entries`, {
        content: { type: 'markdown', content: HOSTILE_ENTRY },
      }),
      201,
    );
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await goTo(page, `/topics/${topic.topicId}`);
    /** HTML as the browser holds it once parsed, so that strings of the server and the DOM compare. */
    const parsed = (html: string): Promise<string> =>
      page.evaluate(
        `(() => { const t = document.createElement('template'); t.innerHTML = ${JSON.stringify(html)}; return t.innerHTML; })()`,
      );
    const rendered = await parsed(renderMarkdown(HOSTILE_ENTRY).html);
    expect(rendered).toContain('<li>Dallas</li>');
    expect(await parsed(sectionOf(versionPreview.body))).toBe(rendered);
    expect(await parsed(sectionOf(await served.text()))).toBe(rendered);
    // The entry as the topic lists it, and in its editor's preview.
    const card = page.getByRole('article', { name: 'Entry 1' }).locator('.markdown');
    await card.waitFor();
    expect(await card.innerHTML()).toBe(rendered);
    await page.getByRole('button', { name: 'Edit entry 1' }).click();
    const preview = page.getByRole('region', { name: 'Preview of entry 1' });
    await preview.locator('.markdown').waitFor();
    expect(await preview.locator('.markdown').innerHTML()).toBe(rendered);
    expect(
      await preview.locator('script, b, div.promo, img, h1, ul ul, a[href^="javascript:"]').count(),
    ).toBe(0);

    // Before saving: what a page will show otherwise, in words, and the entry's limit.
    const changes = preview.getByRole('region', { name: 'A page will show this differently' });
    const said = await changes.getByRole('listitem').allTextContents();
    for (const words of [
      'Headings show as paragraphs, in bold unless they have bold or italic of their own: Results that speak.',
      'HTML shows as its text, without its tags: <b>, <div>.',
      'Scripts and styles are left out whole: <script>.',
      'Lists inside lists are flattened: their items join the outer list: Ohio, Dallas.',
      'These links show as their text: javascript:alert(1), data:text/html,hi. A page links only to web, mail and phone addresses, paths and #anchors.',
      'Images show as their alt text (without one, not at all): Globex logo.',
      'Code shows as plain text: npm install, indented <i>code</i>.',
      'Quotes show as plain paragraphs.',
      'Horizontal rules are left out.',
      'Line breaks inside a paragraph show as spaces. Leave a blank line to start a new paragraph.',
      'Marks that close nothing show as written, and generated pages leave their sentence out: **more. Close them, or take them out.',
      'Web addresses that are not links show as plain text, and generated pages leave their sentence out: www.example.org. Write them as links: [words](https://…).',
    ]) {
      expect(said).toContain(words);
    }
    expect(
      said.some((item) =>
        item.startsWith(
          "A link stays a link on a generated page only when it goes to one of that page's actions",
        ),
      ),
    ).toBe(true);
    const editor = page.getByRole('group', { name: 'Entry 1' });
    expect(await limitsOf(editor, 'Text').textContent()).toBe('At most 10,000 characters.');
    await editor.getByText(`${[...HOSTILE_ENTRY].length} of 10,000 characters`).waitFor();
    await page.getByText('A topic holds up to 100 entries; this one has 1.').waitFor();
    await checkView(page, 'entry-editor-warning', 'desktop');
    await page.setViewportSize(VIEWPORTS.phone);
    await checkView(page, 'entry-editor-warning', 'phone');
    await page.setViewportSize(VIEWPORTS.desktop);

    // Plain copy has nothing to warn of; over the limit is said as it is typed, and refused before
    // it is sent.
    await editor.getByLabel('Text').fill('Audited twice a year.');
    await expect.poll(() => changes.count()).toBe(0);
    const patches = requestsSent(page, 'PATCH');
    await editor.getByLabel('Text').fill('x'.repeat(10_005));
    await editor.getByText('10,005 characters: 5 over the limit').waitFor();
    await page.getByRole('button', { name: 'Save entry 1' }).click();
    expect(await errorOf(editor, 'Text')).toBe('must have at most 10,000 characters (it has 10,005)');
    expect(await outcomeOf(page, 'Save entry 1').textContent()).toBe('Not saved. Correct the field marked.');
    expect(patches).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 60_000);

  it('deletes an entry and then its topic, each after asking, and goes where a marketer expects', async () => {
    const topic = await ok(api.post('/v0/topics', { title: 'Retired claims' }), 201);
    const entry = (content: string, sortOrder: number) =>
      ok(
        api.post(`/v0/topics/${topic.topicId}/entries`, { content: { type: 'text', content }, sortOrder }),
        201,
      );
    const kept = await entry('Audited twice a year.', 0);
    await entry('Cuts empty shelves by half, guaranteed.', 1);
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await goTo(page, `/topics/${topic.topicId}`);

    const second = page.getByRole('article', { name: 'Entry 2' });
    await second.getByRole('button', { name: 'Delete entry 2' }).click();
    await second.getByText('Delete entry 2 for good? Pages already generated keep their copy.').waitFor();
    await expect.poll(() => page.evaluate('document.activeElement.textContent')).toBe('Yes, delete');
    await checkView(page, 'topic-entry-delete-asked', 'desktop');
    await second.getByRole('button', { name: 'Keep it' }).click();
    expect((await ok(api.get(`/v0/topics/${topic.topicId}`))).entries).toHaveLength(2);

    await second.getByRole('button', { name: 'Delete entry 2' }).click();
    await second.getByRole('button', { name: 'Yes, delete' }).click();
    const deleted = page.getByRole('status').filter({ hasText: 'Entry 2 was deleted' });
    await deleted.waitFor();
    await expect
      .poll(() => page.evaluate('document.activeElement.textContent'))
      .toBe('Entry 2 was deleted; generation no longer draws on it.');
    await expect.poll(() => page.getByRole('article').count()).toBe(1);
    expect((await ok(api.get(`/v0/topics/${topic.topicId}`))).entries).toEqual([kept]);

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page
      .getByText(
        'Delete this topic and its entry for good? Generation stops drawing on it at once; pages already generated keep their copy.',
      )
      .waitFor();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('heading', { name: 'Topics', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/topics');
    await settle(page);
    expect(await page.getByRole('link', { name: 'Retired claims' }).count()).toBe(0);
    expect((await api.get(`/v0/topics/${topic.topicId}`)).status).toBe(404);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it("names each link's page and audience, and opens the live page in a new tab", async () => {
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await page.getByRole('link', { name: 'Page links' }).click();
    const link = row(page, 'Page links', '/spring/sam');
    await link.getByRole('link', { name: 'Sam Lee at Initech' }).waitFor();
    expect(await cell(link, 'Page and audience')).toBe('Spring launch › , for Sam Lee at Initech');
    expect(await page.locator('main').textContent()).not.toContain('audience_');

    // The page names its brand, and each served audience has its live page.
    await link.getByRole('link', { name: 'Spring launch' }).click();
    await page.getByRole('heading', { name: 'Spring launch', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Acme Retail' }).waitFor();
    const live = row(page, 'Audiences of this page', 'Sam Lee').getByRole('link', {
      name: /^Open live page/,
    });
    expect(await live.getAttribute('rel')).toContain('noopener');
    expect(await live.getAttribute('target')).toBe('_blank');
    const [visitor] = await Promise.all([page.waitForEvent('popup'), live.click()]);
    await visitor.waitForLoadState();
    expect(visitor.url()).toBe(`${server.pagesUrl}${sample.url}`);
    await visitor.getByRole('heading', { level: 1 }).waitFor();
    expect(await visitor.evaluate('window.opener')).toBeNull();
    await visitor.close();

    await goTo(page, `/pages/${sample.pageId}/audiences/${sample.audienceId}`);
    const fromAudience = page.getByRole('link', {
      name: 'Open live page of Sam Lee at Initech (opens in another tab)',
    });
    expect(await fromAudience.first().getAttribute('href')).toBe(`${server.pagesUrl}${sample.url}`);

    // A draft page's audience has no live page, and says why.
    await goTo(page, `/pages/${draftPageId}`);
    await expect
      .poll(() => cell(row(page, 'Audiences of this page', 'Sam Lee'), 'Live page'))
      .toBe('page draft');
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it("lists the pages made for a person, with each one's live page", async () => {
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await goTo(page, `/persons/${personId}`);
    const spring = row(page, 'Pages made for this person', 'Spring launch');
    expect(await cell(spring, 'Audience')).toBe('Sam Lee at Initech');
    expect(await cell(spring, 'Visitors see')).toBe('version 1');
    expect(await spring.getByRole('link', { name: /^Open live page/ }).getAttribute('href')).toBe(
      `${server.pagesUrl}${sample.url}`,
    );
    await expect
      .poll(() => cell(row(page, 'Pages made for this person', 'Winter preview'), 'Live page'))
      .toBe('page draft');
    await page.getByText('Showing 2', { exact: true }).waitFor();
    await spring.getByRole('link', { name: 'Spring launch' }).click();
    await page.getByRole('heading', { name: 'Spring launch', level: 1 }).waitFor();
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it("offers a widget's kinds as a list, and keeps a kind set through the API", async () => {
    const { pageId } = await ok(
      api.post('/v0/pages', {
        ...SAMPLE_PAGE,
        name: 'Widgets',
        actionCardWidgets: [{ type: 'carousel', title: 'Loved by', logos: [] }],
      }),
      201,
    );
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await goTo(page, `/pages/${pageId}/edit`);
    const first = page.getByRole('group', { name: 'Widget 1' }).getByRole('combobox', { name: 'Kind' });
    expect(await first.inputValue()).toBe('carousel');
    await page.getByRole('button', { name: 'Add another widget' }).click();
    const second = page.getByRole('group', { name: 'Widget 2' }).getByRole('combobox', { name: 'Kind' });
    const values = await second
      .locator('option')
      .evaluateAll((options) => options.map((option) => option.getAttribute('value')));
    expect(values).toEqual(['logos', 'testimonial', 'cta']);
    await second.selectOption('cta');
    await page.getByRole('group', { name: 'Widget 2' }).getByLabel('Title', { exact: true }).fill('Ready?');
    await page.getByRole('button', { name: 'Save changes' }).click();
    // Exact: the editor's own heading, "Edit Widgets", would match at once, before the save.
    await page.getByRole('heading', { name: 'Widgets', level: 1, exact: true }).waitFor();
    const saved = await ok(api.get(`/v0/pages/${pageId}`));
    expect(saved.actionCardWidgets.map((widget: any) => widget.type)).toEqual(['carousel', 'cta']);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('updates versions live as they are generated, and shows why a version was cancelled', async () => {
    const base = `/v0/pages/${sample.pageId}/audiences`;
    const { audienceId } = await ok(api.post(base, { customName: 'Retailers' }), 201);
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, api.apiKey as string);
    await goTo(page, `/pages/${sample.pageId}/audiences/${audienceId}`);
    const first = row(page, 'Versions', 'not generated yet');
    expect(await cell(first, 'State')).toBe('queued');
    const worker = server.worker();
    worker.start();
    try {
      await expect
        .poll(() => cell(row(page, 'Versions', 'Preview v1'), 'State'), { timeout: 20_000 })
        .toBe('draftWritten without a language model: how to connect one.');
    } finally {
      await worker.stop();
    }

    // Version 2 is cancelled by hand; version 3 gave up, and says why.
    await ok(api.post(`${base}/${audienceId}/versions`), 201);
    await ok(api.post(`${base}/${audienceId}/cancel`));
    await ok(api.post(`${base}/${audienceId}/versions`), 201);
    await ok(api.post(`${base}/${audienceId}/cancel`));
    const versions = (await ok(api.get(`${base}/${audienceId}/versions`))).items;
    const third = versions.find((version: any) => version.versionNumber === 3);
    const note = 'The model did not answer through every retry (3 attempts).';
    await anyTables(server.database)
      .updateTable('audience_versions')
      .set({ generation_note: note })
      .where('id', '=', third.versionId)
      .execute();
    await page.reload();
    await page.getByRole('heading', { name: 'Retailers', level: 1 }).waitFor();
    await settle(page);
    const rows = page
      .locator('table', { has: page.locator('caption:text-is("Versions")') })
      .locator('tbody tr');
    const states = await rows.locator('td[data-label="State"]').allTextContents();
    expect(states).toContain(`cancelled${note}`);
    expect(states).toContain('cancelledStopped before it was generated: cancelled, replaced or archived.');
    expect(await rows.locator('td[data-label="Preview"]').allTextContents()).toContain('never generated');
    await checkView(page, 'audience-cancelled', 'desktop');
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 60_000);

  it("finds a link's audience and a person's page behind 100 newer pages, in one read of audiences", async () => {
    // A tenant of its own, whose one audience is on its oldest page, behind 100 newer pages.
    const tenant = await server.newTenant();
    const ada = await ok(
      tenant.post('/v0/persons', { name: 'Ada Park', email: 'ada@umbrella.example' }),
      201,
    );
    await publishLinkedPage(server, tenant, {
      page: { name: 'Oldest page' },
      path: '/oldest/ada',
      audience: { personId: ada.personId },
      personalize: false,
    });
    for (let n = 1; n <= 100; n++) {
      await ok(tenant.post('/v0/pages', { ...SAMPLE_PAGE, name: `Newer page ${n}` }), 201);
    }
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, tenant.apiKey as string);

    // Audiences are read across pages (GET /v0/audiences): the newer pages, without any, cost nothing.
    await goTo(page, '/page-links');
    const link = row(page, 'Page links', '/oldest/ada');
    await link.getByRole('link', { name: /^Ada Park/ }).waitFor();
    expect(await cell(link, 'Page and audience')).toContain('Oldest page');

    // A person's pages are their audiences, read by person.
    await goTo(page, `/persons/${ada.personId}`);
    await settle(page);
    // The live link is read after its row is shown, with no busy mark of its own: wait for it.
    await expect
      .poll(() => cell(row(page, 'Pages made for this person', 'Oldest page'), 'Live page'))
      .toMatch(/^Open live page of Ada Park/);
    await page.getByText('Showing 1', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Show older ones' }).count()).toBe(0);
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 60_000);

  it('keeps brand names whole at 320 px', async () => {
    const { page, cspViolations } = await openConsole(browser, server.url, 'phone');
    await page.setViewportSize({ width: 320, height: 640 });
    await signIn(page, api.apiKey as string);
    const names = ['Northwind Outfitters Internationale', 'Acme Retail'];
    for (const view of [
      '/brands',
      '/brands/northwind',
      '/brands/northwind/edit',
      '/topics',
      `/topics/${storiesId}`,
      `/topics/${storiesId}/edit`,
      `/pages/${draftPageId}`,
      `/pages/${sample.pageId}`,
    ]) {
      await goTo(page, view);
      expect(await brokenWords(page, names), view).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), view).toBe(
        true,
      );
    }
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('shows a read-only key no control that writes on these views', async () => {
    const readOnly = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    const { page, cspViolations } = await openConsole(browser, server.url);
    await signIn(page, readOnly.apiKey);
    for (const view of ['/topics', `/topics/${storiesId}`, `/persons/${personId}`, '/page-links']) {
      await goTo(page, view);
      await expectNoWriteControl(page, view);
    }
    await page.getByText('Spring launch').first().waitFor();
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    it(`shows these views at ${viewport} width without sideways scroll or a serious axe-core violation`, async () => {
      const { page, cspViolations } = await openConsole(browser, server.url, viewport);
      await signIn(page, api.apiKey as string);
      const views: [string, string][] = [
        ['topics', '/topics'],
        ['topic-new', '/topics/new'],
        ['topic', `/topics/${storiesId}`],
        ['topic-edit', `/topics/${storiesId}/edit`],
        ['page-links-named', '/page-links'],
        ['person-pages', `/persons/${personId}`],
        ['page-live', `/pages/${sample.pageId}`],
        ['audience-live', `/pages/${sample.pageId}/audiences/${sample.audienceId}`],
      ];
      for (const [name, view] of views) {
        await goTo(page, view);
        await checkView(page, name, viewport);
      }

      // The editor of an entry beside the preview of what is being typed.
      await goTo(page, `/topics/${storiesId}`);
      await page.getByRole('button', { name: 'Edit entry 1' }).click();
      await page
        .getByRole('group', { name: 'Entry 1' })
        .getByLabel('Text')
        .fill(
          '**Northwind Outfitters** raised booked demos by *38%* in six weeks.\n\n1. A page per account\n2. Written from [their notes](https://example.com/notes)\n\nNo new tools to learn.',
        );
      await page.getByRole('region', { name: 'Preview of entry 1' }).locator('ol li').first().waitFor();
      await checkView(page, 'topic-entry-editor', viewport);

      // The same editor, warning before saving what a page will show otherwise.
      await page.getByRole('group', { name: 'Entry 1' }).getByLabel('Text').fill(HOSTILE_ENTRY);
      await page.getByRole('region', { name: 'A page will show this differently' }).waitFor();
      await checkView(page, 'topic-entry-warning', viewport);
      expect(cspViolations).toEqual([]);
      await page.close();
    }, 90_000);
  }
});
