import { expect } from 'vitest';
import { BRANDS, PAGES, PERSONS, TOPICS } from '../../src/cli/demo-sample.ts';
import type { PageType } from '../../src/resources/pages/schema.ts';
import type { Client } from './server.ts';

/**
 * The copy-quality suite's drafts: every audience of the demo (`tailor demo`'s sample, made through
 * the API), and one audience for each of a set of hostile knowledge bases (entries that describe the
 * page, hype, near-duplicates, off-topic, markup, subjects the guidance rules out, the audience's
 * private context, very long, next to nothing), each with what its draft must and must not show.
 */

export interface Draft {
  label: string;
  pageId: string;
  audienceId: string;
  /** The audience's private texts: its context and the person's notes. */
  private: string[];
  /** What the guidance rules out, as a reader would spot it on the page. */
  excluded: RegExp[];
  /** What else must not show. */
  never: RegExp[];
  /** Text that must show: the knowledge worth showing among the hostile. */
  shows: string[];
  /** Text that may show at most once. */
  once: string[];
  /** The heading of the first section, when the guidance decides it. */
  leadsWith?: string;
  pageType: PageType;
}

function ok<T extends { status: number; body: unknown }>(response: T, status: number): T {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response;
}

async function addTopic(
  client: Client,
  spec: { title: string; purpose?: string; brandIds: string[]; entries: { type: string; content: string }[] },
): Promise<void> {
  const { title, purpose = '', brandIds } = spec;
  const topic = ok(await client.post('/v0/topics', { title, purpose, brandIds }), 201).body;
  for (const content of spec.entries) {
    ok(await client.post(`/v0/topics/${topic.topicId}/entries`, { content }), 201);
  }
}

async function publishedPage(client: Client, page: object): Promise<string> {
  const { pageId } = ok(await client.post('/v0/pages', page), 201).body;
  ok(await client.post(`/v0/pages/${pageId}/publish`), 200);
  return pageId;
}

/** What the demo's guidance decides, by the audience's path: the section it leads with, what it rules out. */
const DEMO_EXPECTED: Record<string, Pick<Draft, 'leadsWith' | 'excluded'>> = {
  '/platform': { excluded: [] },
  '/platform/planners': { leadsWith: 'Forecasting', excluded: [] },
  '/platform/store-managers': { leadsWith: 'Shelf-gap alerts', excluded: [/dashboard/i] },
  '/platform/globex': { leadsWith: 'Customer results', excluded: [/shelf[- ]gap|shelf alert/i] },
  '/platform/initech': { leadsWith: 'How Brightwave works', excluded: [] },
  '/platform/umbrella': { leadsWith: 'Customer results', excluded: [] },
  '/holiday/northwind': { leadsWith: 'Customer results', excluded: [] },
  '/holiday/globex': { leadsWith: 'Shelf-gap alerts', excluded: [/dashboard/i] },
  '/follow-up/jane-cooper': { leadsWith: 'Plans and pilots', excluded: [] },
  '/keelson/initech': { leadsWith: 'Freight visibility', excluded: [] },
  '/keelson/umbrella': { leadsWith: 'Results with Keelson', excluded: [] },
};

/** The demo's sample, made through the API in the client's tenant: its audiences, queued. */
export async function queueDemo(client: Client): Promise<Draft[]> {
  for (const brand of BRANDS) {
    ok(await client.request('PUT', `/v0/brands/${brand.brandId}`, { body: brand.profile }), 201);
  }
  for (const topic of TOPICS) await addTopic(client, topic);
  const accounts = new Map<string, string>();
  for (const { account } of PERSONS) {
    if (!accounts.has(account.domain))
      accounts.set(account.domain, ok(await client.post('/v0/accounts', account), 201).body.accountId);
  }
  const persons = new Map<string, { personId: string; notes: string[] }>();
  for (const spec of PERSONS) {
    const { name, email, linkedinProfileUrl } = spec;
    const person = ok(await client.post('/v0/persons', { name, email, linkedinProfileUrl }), 201).body;
    if (spec.note) ok(await client.post(`/v0/persons/${person.personId}/logs`, { text: spec.note }), 201);
    persons.set(spec.key, { personId: person.personId, notes: spec.note ? [spec.note] : [] });
  }
  const drafts: Draft[] = [];
  for (const { page, audiences } of PAGES) {
    const pageId = await publishedPage(client, page);
    for (const spec of audiences) {
      const person = spec.person ? persons.get(spec.person) : undefined;
      const who = person
        ? { personId: person.personId }
        : spec.account
          ? { accountId: accounts.get(spec.account) }
          : { customName: spec.customName };
      const body = { ...who, supplementaryContext: spec.context };
      const { audienceId } = ok(await client.post(`/v0/pages/${pageId}/audiences`, body), 201).body;
      drafts.push({
        label: `demo ${spec.path}`,
        pageId,
        audienceId,
        private: [spec.context, ...(person?.notes ?? [])],
        never: [],
        shows: [],
        once: [],
        pageType: page.pageType ?? 'inbound',
        ...DEMO_EXPECTED[spec.path],
        excluded: DEMO_EXPECTED[spec.path]?.excluded ?? [],
      });
    }
  }
  return drafts;
}

/** A knowledge base that tries to make a draft one a marketer would not send. */
interface Hostile {
  label: string;
  pageType: PageType;
  /** Entries as text, or as markdown when they start with `md:`. */
  topics: { title: string; entries: string[] }[];
  context: string;
  note: string;
  excluded?: RegExp[];
  never?: RegExp[];
  shows?: string[];
  once?: string[];
  leadsWith?: string;
}

/** A paragraph of about 9,000 characters, each sentence its own. */
const LONG_PARAGRAPH = Array.from(
  { length: 120 },
  (_, n) => `In week ${n + 1} the forecast for store ${n + 1} was checked against what it sold.`,
).join(' ');

/** An entry of many paragraphs, each about forecasts. */
const MANY_PARAGRAPHS = Array.from(
  { length: 60 },
  (_, n) => `Forecast review ${n + 1}: the planners of region ${n + 1} compared forecast and sales.`,
).join('\n\n');

const HOSTILE: Hostile[] = [
  {
    label: 'entries that describe the page',
    pageType: 'inbound',
    topics: [
      {
        title: 'Stock-outs',
        entries: [
          'This page was personalized for you based on your profile.',
          'Chosen for Globex Retail: Shelf-gap alerts and Brightwave platform.',
          'Replenishment alerts flag the stores that will run out of a line two weeks before they do.',
          'md:We put together this page to show you our alerts. Alerts reach the store manager before opening.',
        ],
      },
    ],
    context: 'Worried about stock-outs before the holidays.',
    note: 'Met at the retail fair; prefers email.',
    shows: [
      'Replenishment alerts flag the stores that will run out of a line two weeks before they do.',
      'Alerts reach the store manager before opening.',
    ],
    leadsWith: 'Stock-outs',
  },
  {
    label: 'salesy filler',
    pageType: 'outbound',
    topics: [
      {
        title: 'Forecasting',
        entries: [
          'World-class, best-in-class forecasting!!! Act now!',
          'OUR FORECASTS ARE THE BEST IN THE BUSINESS',
          'Our cutting-edge platform is a game-changer for forecast accuracy.',
          'Forecasts are accurate to within 6% at store and SKU level.',
        ],
      },
    ],
    context: 'Planners who care about forecast accuracy.',
    note: 'Asked for numbers, not adjectives.',
    never: [/world-class|best-in-class|act now|cutting-edge|game-changer|best in the business|!!/i],
    shows: ['Forecasts are accurate to within 6% at store and SKU level.'],
    leadsWith: 'Forecasting',
  },
  {
    label: 'near-duplicates',
    pageType: 'sales_deck',
    topics: [
      {
        title: 'Trials',
        entries: [
          'Each trial lasts 30 days on your own data.',
          'Each trial lasts for 30 days, on your own data.',
          'md:**Each trial** lasts 30 days on your own data!',
        ],
      },
      {
        title: 'Plans',
        entries: ['Growth covers up to 50 stores; Scale covers every store and adds a named analyst.'],
      },
    ],
    context: 'They asked how long a trial lasts, and about the plans.',
    note: 'Wants to start small.',
    once: ['30 days'],
    shows: ['Growth covers up to 50 stores;'],
    leadsWith: 'Trials',
  },
  {
    label: 'off-topic entries',
    pageType: 'custom',
    topics: [
      {
        title: 'Office life',
        entries: ['Our cafeteria serves soup on Fridays.', 'The office dog is called Biscuit.'],
      },
      {
        title: 'Markdown forecasting',
        entries: [
          'Markdown forecasting shows a month ahead which lines will not sell through at full price.',
          'A 120-store apparel chain cut end-of-season markdowns by 18% in a year.',
        ],
      },
    ],
    context: 'Their clearance sales eat the margin: their markdowns come too late.',
    note: 'Follow up after the January sales.',
    never: [/cafeteria|Biscuit|soup|office dog/i],
    leadsWith: 'Markdown forecasting',
  },
  {
    label: 'markup-heavy entries',
    pageType: 'inbound',
    topics: [
      {
        title: 'Replenishment',
        entries: [
          'md:# Stock alerts\n\n**Replenishment alerts** flag stores _two weeks_ before they run out of stock. See [the docs](https://elsewhere.example/docs).\n\n- stock alerts by store\n  - nested under it\n- stock alerts by line\n\n<div onclick="x()">Stock alerts <b>ship</b> daily.</div>\n\n![stock diagram](https://elsewhere.example/x.png)\n\n```\nstock code block\n```',
        ],
      },
    ],
    context: 'They want alerts before stock runs out.',
    note: 'Runs replenishment for 80 stores.',
    never: [/\*\*|__|\]\(|<div|<b>|onclick|elsewhere\.example|```/i],
    shows: ['Replenishment alerts flag stores two weeks before they run out of stock.'],
    leadsWith: 'Stock alerts',
  },
  {
    label: 'entries about what the guidance rules out',
    pageType: 'inbound',
    topics: [
      {
        title: 'Shelf-gap alerts',
        entries: ['Shelf-gap alerts tell store teams which shelves will run empty today.'],
      },
      {
        title: 'Customer results',
        entries: [
          'A grocer filled nine in ten shelf gaps before opening with shelf-gap alerts.',
          'A 90-store fashion chain cut clearance markdowns by 14% in its first season.',
        ],
      },
      { title: 'Pricing', entries: ['Growth costs less than one analyst a year.'] },
    ],
    context: 'Lead with customer results. She has no interest in shelf alerts. Don’t mention pricing.',
    note: 'Her board meets in May.',
    excluded: [/shelf[- ]gap|shelf alert|shelves/i, /pric|costs less/i],
    shows: ['A 90-store fashion chain cut clearance markdowns by 14% in its first season.'],
    leadsWith: 'Customer results',
  },
  {
    label: 'entries that repeat the private context',
    pageType: 'call_followup',
    topics: [
      {
        title: 'Pilots',
        entries: [
          'Globex is opening 40 stores this spring.',
          'Every pilot runs 30 days on your own data, in the stores you choose.',
          'md:The CFO leaves in March and the budget freezes after that, so a pilot soon would help.',
        ],
      },
    ],
    context: 'Globex is opening 40 stores this spring.',
    note: 'Call with Dana: the CFO leaves in March and the budget freezes after that.',
    never: [/CFO|40 stores|budget freezes/i],
    shows: ['Every pilot runs 30 days on your own data, in the stores you choose.'],
    leadsWith: 'Pilots',
  },
  {
    label: 'very long entries',
    pageType: 'outbound',
    topics: [
      {
        title: 'Forecast reviews',
        entries: [
          LONG_PARAGRAPH,
          MANY_PARAGRAPHS,
          'Forecast error stays under 6% once eight weeks of sales are in.',
        ],
      },
    ],
    context: 'Merchandise planners who care about forecast accuracy.',
    note: 'Reads everything on a phone.',
  },
  {
    label: 'entries with next to nothing in them',
    pageType: 'outbound',
    topics: [
      {
        title: 'Notes',
        entries: [
          'TBD',
          '-',
          '…',
          '<br>',
          '**',
          'Lorem ipsum dolor sit amet.',
          'Coming soon: {{company}} pricing.',
        ],
      },
      { title: 'Pilots', entries: ['A pilot takes four weeks and needs no engineers.'] },
    ],
    context: 'Evaluating a pilot.',
    note: 'Prefers a call on Mondays.',
    never: [/\bTBD\b|Lorem|\{\{|Coming soon|…|<br>/i],
    shows: ['A pilot takes four weeks and needs no engineers.'],
    leadsWith: 'Pilots',
  },
];

const PITCH =
  'Brightwave shows retailers what sells where: one live view of stores and stock, with forecasts merchandisers act on. Most retailers are live within two weeks.';

/** The hostile knowledge bases, each for a brand of its own with a page and an audience, queued. */
export async function queueHostile(client: Client): Promise<Draft[]> {
  const drafts: Draft[] = [];
  for (const [n, spec] of HOSTILE.entries()) {
    const brandId = `hostile-${n + 1}`;
    ok(await client.request('PUT', `/v0/brands/${brandId}`, { body: { name: 'Brightwave' } }), 201);
    for (const topic of spec.topics) {
      const entries = topic.entries.map((entry) => ({
        type: entry.startsWith('md:') ? 'markdown' : 'text',
        content: entry.replace(/^md:/, ''),
      }));
      await addTopic(client, { title: topic.title, brandIds: [brandId], entries });
    }
    const pageId = await publishedPage(client, {
      name: 'Retail forecasting',
      pageType: spec.pageType,
      pageContext: PITCH,
      brandId,
      actions: [
        {
          actionId: 'talk',
          buttonTitle: 'Book a demo',
          actionType: 'form',
          purpose: 'A call with a specialist',
        },
      ],
      actionCardWidgets: [],
      scripts: [],
      metadata: { description: 'Forecasts your stores can act on.' },
    });
    const domain = `company-${n + 1}.example`;
    ok(await client.post('/v0/accounts', { domain, name: `Company ${n + 1}` }), 201);
    const person = ok(
      await client.post('/v0/persons', { name: 'Dana Reyes', email: `dana@${domain}` }),
      201,
    ).body;
    ok(await client.post(`/v0/persons/${person.personId}/logs`, { text: spec.note }), 201);
    const body = { personId: person.personId, supplementaryContext: spec.context };
    const { audienceId } = ok(await client.post(`/v0/pages/${pageId}/audiences`, body), 201).body;
    drafts.push({
      label: spec.label,
      pageId,
      audienceId,
      private: [spec.context, spec.note],
      excluded: spec.excluded ?? [],
      never: spec.never ?? [],
      shows: spec.shows ?? [],
      once: spec.once ?? [],
      leadsWith: spec.leadsWith,
      pageType: spec.pageType,
    });
  }
  return drafts;
}
