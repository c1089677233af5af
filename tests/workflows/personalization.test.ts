import { describe, expect, it } from 'vitest';
import type { VersionContent } from '../../src/resources/audiences/schema.ts';
import type { Page, PageType } from '../../src/resources/pages/schema.ts';
import type { Topic } from '../../src/resources/topics/schema.ts';
import { checkContent, rulesFor } from '../../src/workflows/personalization/check.ts';
import { baselineContent, voiceOf } from '../../src/workflows/personalization/compose.ts';
import type { PersonalizationInput } from '../../src/workflows/personalization/input.ts';
import { escapeMarkdown, markdownHtml, markdownText } from '../../src/workflows/personalization/markdown.ts';
import { companyName, nameFromDomain } from '../../src/workflows/personalization/names.ts';
import { builtInPersonalizer, generateContent } from '../../src/workflows/personalization/personalizer.ts';
import { selectTopics } from '../../src/workflows/personalization/select.ts';

/** The stages of generation as functions: what each guarantees, on inputs made here. */

let ids = 0;
function topic(title: string, entries: string[], options: Partial<Topic> = {}): Topic {
  const topicId = `topic_${++ids}`;
  return {
    topicId,
    title,
    purpose: '',
    sortOrder: 0,
    isDefault: false,
    brandIds: [],
    createdAt: '+1',
    updatedAt: '+1',
    entries: entries.map((content, index) => ({
      topicEntryId: `${topicId}_entry_${index}`,
      topicId,
      sortOrder: index,
      content: {
        type: content.startsWith('md:') ? 'markdown' : 'text',
        content: content.replace(/^md:/, ''),
      },
      createdAt: '+1',
      updatedAt: '+1',
    })),
    ...options,
  };
}

function page(pageType: PageType = 'inbound', overrides: Partial<Page> = {}): Page {
  return {
    pageId: 'page_1',
    name: 'Rocket fuel',
    title: 'Rocket fuel | Acme',
    pageContext: 'Acme fuel gets rockets to orbit on less. Every tank is tested twice.',
    pageType,
    status: 'published',
    brandId: 'acme',
    actions: [
      {
        actionId: 'demo',
        actionIndex: 0,
        purpose: 'A tour of the plant',
        buttonTitle: 'Book a tour',
        actionType: 'link',
        url: 'https://acme.example/tour',
      },
    ],
    actionCardWidgets: [],
    scripts: [],
    metadata: { description: 'Fuel that costs less per kilometre.' },
    audiencesCount: 1,
    createdAt: '+1',
    updatedAt: '+1',
    archivedAt: null,
    deletedAt: null,
    ...overrides,
  };
}

function input(overrides: Partial<PersonalizationInput> = {}): PersonalizationInput {
  const base = page();
  return {
    page: base,
    brand: undefined,
    audience: { id: 'audience_1', actionUrlOverride: null, metadata: base.metadata },
    version: { variant: 0, previous: null },
    person: { name: 'Ada Lovelace' },
    account: { name: null, domain: 'analytical-engines.example' },
    topics: [
      topic('Safety', [
        'Every tank is pressure-tested before it ships.',
        'No fuel has failed a test since 2019.',
      ]),
      topic('Prices', ['md:**Standard**: 40 credits a tank. **Bulk**: 30 credits.']),
      topic('Recipes', ['Our cafeteria serves soup on Fridays.']),
    ],
    private: { context: 'Ada wants the bulk price before the board meets.', notes: [] },
    foreign: {
      topics: [topic('Globex', ['Globex fuel burns cleaner than anything else.'])],
      brandNames: ['Globex'],
    },
    ...overrides,
  };
}

const textOf = (content: VersionContent) =>
  [
    content.headline,
    content.subheadline,
    ...content.sections.flatMap((s) => [s.heading, markdownText(s.body)]),
  ].join('\n');

describe('names', () => {
  it.each([
    ['navy-cobol.example', 'Navy Cobol'],
    ['acme.co.uk', 'Acme'],
    ['shop.initech.com', 'Initech'],
    ['hp.com', 'HP'],
    ['xn--mnchen-3ya.de', 'München'],
  ])('names %s as a reader would: %s', (domain, name) => {
    expect(nameFromDomain(domain)).toBe(name);
  });

  it("prefers the account's own name", () => {
    expect(companyName({ name: 'Navy COBOL Ltd', domain: 'navy-cobol.example' })).toBe('Navy COBOL Ltd');
    expect(companyName({ name: '  ', domain: 'navy-cobol.example' })).toBe('Navy Cobol');
  });
});

describe('markdown', () => {
  it('keeps paragraphs, lists, bold, italic and allowed links; shows every other mark as its text', () => {
    const source =
      '# Title\n\n**Bold**, _italic_ and [a link](https://ok.example).\n\n1. one\n2. two\n\n> quote\n\n`code`';
    expect(markdownHtml(source, (href) => href.startsWith('https://ok.'))).toBe(
      '<p><strong>Title</strong></p><p><strong>Bold</strong>, <em>italic</em> and <a href="https://ok.example">a link</a>.</p><ol><li>one</li><li>two</li></ol><p>quote</p><p>code</p>',
    );
    expect(markdownText(source)).toBe('Title\nBold, italic and a link.\none\ntwo\nquote\ncode');
  });

  it('escapes plain text so that it reads back as written', () => {
    for (const text of [
      '5 * 3 = 15',
      '# not a heading',
      '**not bold**',
      'a_b_c',
      '1. not a list',
      '<b>x</b>',
    ]) {
      expect(markdownText(escapeMarkdown(text))).toBe(text);
    }
  });
});

describe('select', () => {
  it('ranks the entries most relevant to the page and the audience first, and leaves the unrelated out', () => {
    const selected = selectTopics(input(), 4);
    expect(selected.map((s) => s.topic.title)).toEqual(['Prices', 'Safety']);
  });

  it('lets the page type weigh in: a sales deck draws on pricing, where an inbound page need not', () => {
    const quiet = { private: { context: '', notes: [] }, account: null };
    const deck = selectTopics(input({ ...quiet, page: page('sales_deck') }), 4);
    expect(deck.map((s) => s.topic.title)).toContain('Prices');
    expect(selectTopics(input({ ...quiet, page: page('inbound') }), 4).map((s) => s.topic.title)).toEqual([
      'Safety',
    ]);
  });

  it('falls back to the default topic when nothing is relevant, so a page is never bare', () => {
    const standIn = topic('About us', ['Founded in 1901.'], { isDefault: true });
    const selected = selectTopics(input({ topics: [topic('Recipes', ['Soup on Fridays.']), standIn] }), 4);
    expect(selected.map((s) => s.topic.title)).toEqual(['About us']);
  });
});

describe('the built-in personalizer', () => {
  it.each(['inbound', 'outbound', 'call_followup', 'sales_deck', 'custom'] as PageType[])(
    'writes a %s page that passes every check, with at most four sections',
    async (pageType) => {
      const given = input({ page: page(pageType) });
      const { content } = await generateContent(given, builtInPersonalizer);
      expect(checkContent(content, rulesFor(given))).toEqual([]);
      expect(content.sections.length).toBeGreaterThan(0);
      expect(content.sections.length).toBeLessThanOrEqual(4);
      expect(content.headline.length).toBeLessThan(90);
      expect(textOf(content)).not.toContain('analytical-engines.example');
      expect(textOf(content)).not.toMatch(/bulk price before|board meets|Globex|cafeteria/);
    },
  );

  it('addresses a person by first name, an account by name, and anyone by the page', async () => {
    const person = (await builtInPersonalizer.personalize(input({ page: page('call_followup') }))).headline;
    const account = (
      await builtInPersonalizer.personalize(input({ person: null, page: page('call_followup') }))
    ).headline;
    const anyone = (await builtInPersonalizer.personalize(input({ person: null, account: null }))).headline;
    expect(person).toContain('Ada');
    expect(account).toContain('Analytical Engines');
    expect(anyone).toBe('Rocket fuel');
  });

  it('phrases alike audiences differently, and one audience the same every time', async () => {
    const headlines = new Set<string>();
    for (let n = 0; n < 12; n++) {
      const given = input({
        audience: { id: `audience_${n}`, actionUrlOverride: null, metadata: undefined },
      });
      headlines.add((await builtInPersonalizer.personalize(given)).headline);
    }
    expect(headlines.size).toBeGreaterThan(1);
    const again = await builtInPersonalizer.personalize(input());
    expect(again).toEqual(await builtInPersonalizer.personalize(input()));
  });

  it("follows the brand's voice: formal means no first names, and avoided words are not used", async () => {
    const brand = {
      brandId: 'acme',
      name: 'Acme',
      website: null,
      logoAssetId: null,
      colors: { primary: null, accent: null },
      voice: 'Formal and exact. Avoid: meet, see how.',
      footerText: null,
      createdAt: '+1',
      updatedAt: '+1',
    };
    expect(voiceOf(brand)).toEqual({ formal: true, avoid: ['meet', 'see how'] });
    for (let n = 0; n < 8; n++) {
      const given = input({
        brand,
        audience: { id: `voice_${n}`, actionUrlOverride: null, metadata: undefined },
      });
      const { headline } = await builtInPersonalizer.personalize(given);
      expect(headline).not.toContain('Ada');
      expect(headline.toLowerCase()).not.toMatch(/\bmeet\b|see how/);
    }
  });

  it('never repeats the hero in a section, and drops a link that is not an action', async () => {
    const given = input({
      topics: [topic('Prices', ['md:See [our price list](https://elsewhere.example) for fuel prices.'])],
    });
    const content = await builtInPersonalizer.personalize(given);
    expect(content.sections.map((s) => s.body).join(' ')).not.toContain(content.subheadline);
    expect(JSON.stringify(content)).not.toContain('elsewhere.example');
    expect(textOf(content)).toContain('See our price list for fuel prices.');
  });
});

describe('check', () => {
  const given = input();
  const rules = rulesFor(given);
  const content = (overrides: Partial<VersionContent>): VersionContent => ({
    headline: 'Fuel for Analytical Engines',
    subheadline: '',
    sections: [{ heading: 'Safety', body: 'Every tank is tested.' }],
    actions: [
      { actionId: 'demo', buttonTitle: 'Book a tour', purpose: '', url: 'https://acme.example/tour' },
    ],
    metadata: {},
    ...overrides,
  });
  const problems = (overrides: Partial<VersionContent>) =>
    checkContent(content(overrides), rules).map((p) => `${p.path} ${p.problem}`);

  it('passes clean content', () => {
    expect(problems({})).toEqual([]);
  });

  it.each([
    [
      'a sentence of the private context',
      { sections: [{ heading: 'Why', body: 'Ada wants the bulk price before the board meets.' }] },
      "/sections/0/body quotes the audience's private context",
    ],
    [
      'a long run of words from it inside another sentence',
      {
        sections: [
          { heading: 'Why', body: 'We heard that ada wants the bulk price before the board meets soon!' },
        ],
      },
      "/sections/0/body quotes the audience's private context",
    ],
    [
      "another brand's knowledge",
      { sections: [{ heading: 'Why', body: 'Globex fuel burns cleaner than anything else.' }] },
      "/sections/0/body uses another brand's topic",
    ],
    ["another brand's name", { headline: 'Better than Globex' }, '/headline names another brand (globex)'],
    ['an empty section', { sections: [{ heading: 'Empty', body: '  ' }] }, '/sections/0/body is empty'],
    ['a headline over 90 characters', { headline: 'h'.repeat(91) }, '/headline is longer than 90 characters'],
    [
      'bold marks in a heading',
      { sections: [{ heading: '**Bold**', body: 'x' }] },
      '/sections/0/heading shows markup',
    ],
    [
      'a link away from the actions',
      { sections: [{ heading: 'H', body: '[x](https://elsewhere.example)' }] },
      "/sections/0/body links to https://elsewhere.example, which is not one of the page's actions",
    ],
    [
      'a bare address away from the actions',
      { subheadline: 'See https://elsewhere.example/a.' },
      "/subheadline links to https://elsewhere.example/a, which is not one of the page's actions",
    ],
    ['actions that are not the page’s', { actions: [] }, "/actions are not the page's actions"],
    [
      'more than four sections',
      { sections: Array.from({ length: 5 }, () => ({ heading: 'H', body: 'B' })) },
      '/sections has more than 4 sections',
    ],
  ])('refuses %s', (_label, overrides, problem) => {
    expect(problems(overrides as Partial<VersionContent>)).toContain(problem);
  });

  it('does not count as secret what the page says itself', () => {
    const shared = rulesFor(
      input({ private: { context: 'Every tank is pressure-tested before it ships.', notes: [] } }),
    );
    expect(
      checkContent(
        content({ sections: [{ heading: 'S', body: 'Every tank is pressure-tested before it ships.' }] }),
        shared,
      ),
    ).toEqual([]);
  });
});

describe('the baseline', () => {
  it('is the page as it is under its name (the title is for the tab), its context not repeating the hero', () => {
    const baseline = baselineContent(page('inbound', { metadata: undefined }));
    expect(baseline).toMatchObject({
      headline: 'Rocket fuel',
      subheadline: 'Acme fuel gets rockets to orbit on less.',
      sections: [{ heading: 'Overview', body: 'Every tank is tested twice.' }],
    });
  });
});
