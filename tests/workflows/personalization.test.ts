import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VersionContent } from '../../src/resources/audiences/schema.ts';
import type { Page, PageType } from '../../src/resources/pages/schema.ts';
import type { Topic, TopicEntry } from '../../src/resources/topics/schema.ts';
import { checkContent, normalize, rulesFor } from '../../src/workflows/personalization/check.ts';
import { baselineContent, voiceOf } from '../../src/workflows/personalization/compose.ts';
import { allowedTopics, readGuidance } from '../../src/workflows/personalization/guidance.ts';
import type { PersonalizationInput } from '../../src/workflows/personalization/input.ts';
import {
  escapeMarkdown,
  markdownHtml,
  markdownText,
  safeMarkdown,
} from '../../src/workflows/personalization/markdown.ts';
import { companyName, nameFromDomain } from '../../src/workflows/personalization/names.ts';
import {
  builtInPersonalizer,
  CannotGenerate,
  generateContent,
  rankKnowledge,
} from '../../src/workflows/personalization/personalizer.ts';
import { entryContent, entryText, noteLike } from '../helpers/knowledge-arbitraries.ts';

/** The stages of generation as functions: what each guarantees, on inputs made here. */

let ids = 0;
function topicOf(title: string, contents: TopicEntry['content'][], options: Partial<Topic> = {}): Topic {
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
    entries: contents.map((content, index) => ({
      topicEntryId: `${topicId}_entry_${index}`,
      topicId,
      sortOrder: index,
      content,
      createdAt: '+1',
      updatedAt: '+1',
    })),
    ...options,
  };
}

/** A topic of entries written as text, or as markdown when they start with `md:`. */
function topic(title: string, entries: string[], options: Partial<Topic> = {}): Topic {
  return topicOf(
    title,
    entries.map((content) => ({
      type: content.startsWith('md:') ? 'markdown' : 'text',
      content: content.replace(/^md:/, ''),
    })),
    options,
  );
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

  it('rewrites any markdown in the safe subset without losing a word of what a reader sees', () => {
    const noHtml = entryText.filter((text) => !/<\/?[a-z]/i.test(text));
    fc.assert(
      fc.property(noHtml, (source) => {
        expect(normalize(markdownText(safeMarkdown(source, () => false)))).toBe(
          normalize(markdownText(source)),
        );
      }),
      { seed: 22, numRuns: 500 },
    );
    expect(safeMarkdown('Before [](https://x.example) after, [**b**](https://y.example).', () => false)).toBe(
      'Before  after, **b**.',
    );
  });

  it('shows HTML as its text, without tags, scripts or styles', () => {
    expect(
      markdownText(safeMarkdown('<div>Hello <b>you</b> &amp; co<script>x()</script></div>', () => false)),
    ).toBe('Hello you & co');
  });

  it('escapes plain text so that it reads back as written', () => {
    for (const text of [
      '5 * 3 = 15',
      '# not a heading',
      '**not bold**',
      'a_b_c',
      '1. not a list',
      '2) nor this',
      '- nor a bullet',
      '+ nor this',
      '= not a heading',
      'AT&T &copy; &amp;',
      '<b>x</b>',
    ]) {
      expect(markdownText(escapeMarkdown(text))).toBe(text);
    }
  });
});

/** The topics of the ranked passages, best first, each once. */
function rankedTopics(given: PersonalizationInput): string[] {
  return [...new Set(rankKnowledge(given).map((ranked) => ranked.passage.topic.title))];
}

describe('select', () => {
  it('ranks the passages most relevant to the page and the audience first, and leaves the unrelated out', () => {
    expect(rankedTopics(input())).toEqual(['Prices', 'Safety']);
  });

  it('ranks passage by passage: an entry gives its best paragraph, not all of it', () => {
    const given = input({
      topics: [
        topic('Prices', [
          'md:Our cafeteria serves soup on Fridays.\n\nBulk buyers pay 30 credits a tank, not 40.',
        ]),
      ],
    });
    expect(rankKnowledge(given).map((ranked) => ranked.passage.text)).toEqual([
      'Bulk buyers pay 30 credits a tank, not 40.',
    ]);
  });

  it('lets the page type weigh in: a sales deck draws on pricing, where an inbound page need not', () => {
    const quiet = { private: { context: '', notes: [] }, account: null };
    expect(rankedTopics(input({ ...quiet, page: page('sales_deck') }))).toContain('Prices');
    expect(rankedTopics(input({ ...quiet, page: page('inbound') }))).toEqual(['Safety']);
  });

  it('falls back to the default topic when nothing is relevant, so a page is never bare', () => {
    const standIn = topic('About us', ['Founded in 1901.'], { isDefault: true });
    const given = input({ topics: [topic('Recipes', ['Soup on Fridays.']), standIn] });
    expect(rankedTopics(given)).toEqual(['About us']);
  });
});

describe('guidance', () => {
  const read = (context: string) => readGuidance(input({ private: { context, notes: [] } }));

  it.each([
    ['She has no interest in shelf alerts.', [['shelf', 'alert']]],
    ["Don't mention pricing or discounts.", [['pric'], ['discou']]],
    ['Avoid the price rise.', [['pric', 'rise']]],
    ['Store managers; they want less admin, not more dashboards.', [['dashbo']]],
    ['Not interested in pilots.', [['pilot']]],
  ])('reads what "%s" rules out', (context, excluded) => {
    expect(read(context).excluded).toEqual(excluded);
  });

  it.each([
    'They want to avoid stock-outs.',
    'Not only stock-outs but markdowns too.',
    'Short shelf lives, 60 stores.',
  ])('rules nothing out in "%s"', (context) => {
    expect(read(context).excluded).toEqual([]);
    expect(read(context).brief).toBe(false);
  });

  it('hears a request for a short page, and steers with neither it nor what it rules out', () => {
    const guidance = read('Lead with customer results. No interest in shelf alerts. Keep it short, plain.');
    expect(guidance.brief).toBe(true);
    expect([...guidance.steering.keys()]).toEqual(['custom', 'result']);
  });

  it('keeps what it rules out off the page and out of what every personalizer is given', async () => {
    const given = retail('inbound', { context: 'Lead with pilots. She has no interest in stock-outs.' });
    expect(allowedTopics(given).flatMap((t) => t.entries)).toHaveLength(3);
    expect(allowedTopics(given).map((t) => t.title)).toEqual(['Markdown forecasting', 'Pilots']);
    const content = await written(given);
    expect(content.sections[0]?.heading).toBe('Pilots');
    expect(textOf(content)).not.toMatch(/stock-outs|Replenishment|empty shelves/i);
  });

  it('leaves out an entry that mentions what it rules out, and keeps the rest of its topic', () => {
    const given = retail('inbound', { context: 'Avoid the holidays.' });
    const stockOuts = allowedTopics(given).find((t) => t.title === 'Stock-outs');
    expect(stockOuts?.entries.map((e) => e.content.content)).toEqual([
      'Replenishment alerts flag the stores that will run out of a line **two weeks** before they do.',
    ]);
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

/** A retailer's knowledge: three topics a guidance may point at. */
function retailTopics(): Topic[] {
  return [
    topic('Markdown forecasting', [
      'md:Forecasts show a month ahead which lines will not sell through, so **smaller, earlier markdowns** replace the clearance.',
      'A 120-store apparel chain cut end-of-season markdowns by 18% in a year.',
    ]),
    topic('Pilots', ['md:- A **free 30-day pilot** on your own data\n- In as many stores as you choose']),
    topic('Stock-outs', [
      'Replenishment alerts flag the stores that will run out of a line **two weeks** before they do.',
      'Grocers cut empty shelves over the holidays by nineteen percent.',
    ]),
  ];
}

function retail(pageType: PageType, guidance: Partial<PersonalizationInput['private']>, id = 'audience_r') {
  const base = page(pageType, {
    name: 'Retail analytics platform',
    pageContext:
      'Brightwave shows retailers what sells where: one live view of stores and stock. Most retailers are live within two weeks.',
    metadata: { description: 'One live view of every store, with forecasts you can act on.' },
  });
  return input({
    page: base,
    audience: { id, actionUrlOverride: null, metadata: base.metadata },
    person: { name: 'Jane Doe' },
    account: { name: 'Globex Retail', domain: 'globex.example' },
    topics: retailTopics(),
    private: { context: '', notes: [], ...guidance },
    foreign: { topics: [], brandNames: [] },
  });
}

async function written(given: PersonalizationInput): Promise<VersionContent> {
  const { content } = await generateContent(given, builtInPersonalizer);
  expect(checkContent(content, rulesFor(given))).toEqual([]);
  return content;
}

describe('generation never sticks', () => {
  it('reads bold in a plain-text entry as bold, as it reads every entry whatever its type', async () => {
    const content = await written(
      input({ topics: [topic('Prices', ['Bulk buyers save **nineteen percent** on every tank.'])] }),
    );
    const body = content.sections.map((section) => section.body).join('\n');
    expect(body).toContain('**nineteen percent**');
    expect(markdownHtml(body, () => false)).toContain('<strong>nineteen percent</strong>');
  });

  it('leaves out the sentences it cannot show and keeps the others', async () => {
    const content = await written(
      input({
        topics: [
          topic('Prices', [
            'Unpaired ** marks show. See https://elsewhere.example/prices for more. Bulk tanks cost less.',
            'md:<div>Prices <b>drop</b> in bulk &amp; ship free.</div>',
          ]),
        ],
      }),
    );
    const text = textOf(content);
    expect(text).toContain('Bulk tanks cost less.');
    expect(text).toContain('Prices drop in bulk & ship free.');
    expect(text).not.toMatch(/Unpaired|elsewhere/);
  });

  it('writes, for any knowledge and any page texts, a version that passes every check', async () => {
    const scenario = fc.record({
      pageType: fc.constantFrom<PageType>('inbound', 'outbound', 'call_followup', 'sales_deck', 'custom'),
      topics: fc.array(
        fc.record({
          title: fc.oneof(fc.constantFrom('Pilots', 'Stock-outs'), entryText),
          entries: fc.array(entryContent, { minLength: 1, maxLength: 4 }),
        }),
        { minLength: 1, maxLength: 5 },
      ),
      context: fc.oneof(fc.constant(''), noteLike, entryText),
      notes: fc.array(noteLike, { maxLength: 3 }),
      someone: fc.constantFrom('person', 'account', 'anyone'),
      pageTexts: fc.option(fc.record({ pageContext: entryText, description: entryText }), { freq: 4 }),
      variant: fc.nat(5),
    });
    await fc.assert(
      fc.asyncProperty(scenario, async (drawn) => {
        const texts = drawn.pageTexts;
        const given = input({
          page: page(
            drawn.pageType,
            texts ? { pageContext: texts.pageContext, metadata: { description: texts.description } } : {},
          ),
          topics: drawn.topics.map((spec) => topicOf(spec.title, spec.entries)),
          private: { context: drawn.context, notes: drawn.notes },
          person: drawn.someone === 'person' ? { name: 'Jane Doe' } : null,
          account: drawn.someone === 'anyone' ? null : { name: null, domain: 'globex-retail.example' },
          version: { variant: drawn.variant, previous: null },
        });
        const content = await written(given);
        if (!texts) expect(content.sections.length).toBeGreaterThan(0);
      }),
      { seed: 22, numRuns: 300 },
    );
  }, 120_000);

  it('gives up at once, with the reason, on a page whose own button cannot be shown', async () => {
    const base = page('outbound');
    const broken = {
      ...base,
      actions: base.actions.map((action) => ({ ...action, buttonTitle: '**Book** a tour' })),
    };
    await expect(generateContent(input({ page: broken }), builtInPersonalizer)).rejects.toThrow(
      CannotGenerate,
    );
    await expect(generateContent(input({ page: broken }), builtInPersonalizer)).rejects.toThrow(
      '/actions/0/buttonTitle shows markup',
    );
  });
});

describe('guidance steers', () => {
  it('answers each concern it names, the one it says first first', () => {
    const given = retail('inbound', {
      context: 'Worried about holiday stock-outs in the Midwest… they want a pilot before Black Friday.',
    });
    expect(rankedTopics(given).slice(0, 2)).toEqual(['Stock-outs', 'Pilots']);
    expect(rankKnowledge(given)[0]?.guided).toBe(true);
  });

  it('gives two audiences of one page whose guidance stresses different topics different sections first, without a word about why', async () => {
    const baseline = baselineContent(retail('inbound', {}).page);
    const stockOuts = await written(
      retail('inbound', { context: 'Worried about holiday stock-outs in the Midwest.' }, 'audience_a'),
    );
    const markdowns = await written(
      retail('inbound', { context: 'Their clearance sales eat the margin every January.' }, 'audience_b'),
    );
    expect(stockOuts.sections[0]?.heading).toBe('Stock-outs');
    expect(markdowns.sections[0]?.heading).toBe('Markdown forecasting');
    for (const content of [stockOuts, markdowns]) {
      expect(content.subheadline).toBe(baseline.subheadline);
      expect(textOf(content)).not.toMatch(/Midwest|clearance sales|January|chosen|picked|starts with/i);
    }
  });

  it('makes a follow-up about what the call was about, from the notes, without quoting them', async () => {
    const note = 'Call with Jane: she wants a 10-store pilot in Ohio before the holidays.';
    const content = await written(retail('call_followup', { notes: [note] }));
    expect(content.headline).toMatch(/conversation|where we left off/);
    expect(content.subheadline).toMatch(
      /^(Thank you for (your time|the conversation)|It was good to talk with the team at Globex Retail)\./,
    );
    expect(content.sections[0]?.heading).toBe('Pilots');
    expect(markdownText(content.sections[0]?.body ?? '')).toContain('A free 30-day pilot on your own data');
    expect(textOf(content)).not.toMatch(/10-store|Ohio/);
  });

  it('tells the model which topics it points at, first', async () => {
    const given = retail('inbound', { context: 'Their clearance sales eat the margin every January.' });
    expect(rankedTopics(given)[0]).toBe('Markdown forecasting');
  });
});

describe('alternatives', () => {
  it('makes each version generated again an alternative to the one before, the same every time', async () => {
    const given = retail('outbound', { context: 'Worried about holiday stock-outs in the Midwest.' });
    const first = await written(given);
    const second = await written({ ...given, version: { variant: 1, previous: first } });
    const third = await written({ ...given, version: { variant: 2, previous: second } });
    expect(second).not.toEqual(first);
    expect(third).not.toEqual(second);
    expect(await written({ ...given, version: { variant: 1, previous: first } })).toEqual(second);
    expect(second.sections[0]?.heading).toBe('Stock-outs');
  });

  it('still differs from the version before when an audience has little to vary', async () => {
    const given = input({
      person: null,
      account: null,
      private: { context: '', notes: [] },
      topics: [topic('Safety', ['Every tank is pressure-tested before it ships.'])],
    });
    const first = await written(given);
    expect(await written({ ...given, version: { variant: 1, previous: first } })).not.toEqual(first);
  });
});
