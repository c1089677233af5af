import { expect } from 'vitest';
import { getTenant } from '../../src/resources/tenants/service.ts';
import { anyTables } from './any-tables.ts';
import type { Client, TestServer } from './server.ts';

/**
 * Fifteen generated pages, the quality suite's fixtures: three brands, each with a page of every
 * type, for the three shapes of audience (a person at an account, an account only, anyone), so that
 * every type meets every shape. Each brand has knowledge of its own, some in markdown with marks,
 * headings and links (and marks in plain-text entries); the persons carry notes and the audiences
 * private context, none of which a page may show. Beside them, guided audiences: two of one page
 * whose guidance points at different topics, and a follow-up to a call about a pilot.
 */

export const PAGE_TYPES = ['inbound', 'outbound', 'call_followup', 'sales_deck', 'custom'] as const;
export const SHAPES = ['person at an account', 'account only', 'anyone'] as const;

interface TopicSpec {
  title: string;
  entries: { type: 'text' | 'markdown'; content: string }[];
}

interface BrandSpec {
  brandId: string;
  name: string;
  colors: { primary: string; accent: string };
  voice: string;
  site: string;
  pitch: string;
  description: string;
  topics: TopicSpec[];
}

export const BRANDS: BrandSpec[] = [
  {
    brandId: 'acme-rockets',
    name: 'Acme Rockets',
    colors: { primary: '#b91c1c', accent: '#f59e0b' },
    voice: 'Bold and short. Avoid: synergy.',
    site: 'https://acme-rockets.example',
    pitch:
      'Acme Rockets puts small satellites in orbit within six weeks of signing. Every launch is insured and every payload tracked until it is in place.',
    description: 'Orbit in six weeks, insured from the pad to the final orbit.',
    topics: [
      {
        title: 'Launch schedule',
        entries: [
          { type: 'text', content: 'A rideshare slot opens every fortnight from our coastal pad.' },
          {
            type: 'markdown',
            content:
              '# Dedicated launches\n\n**Dedicated** launches fly within **six weeks** of a signed order.',
          },
        ],
      },
      {
        title: 'Payload safety',
        entries: [
          {
            type: 'text',
            content: 'Every payload is insured from integration until it reaches its final orbit.',
          },
          {
            type: 'markdown',
            content: 'Read the [safety report](https://acme-rockets.example/safety) for the full record.',
          },
        ],
      },
    ],
  },
  {
    brandId: 'brightwave',
    name: 'Brightwave',
    colors: { primary: '#4338ca', accent: '#06b6d4' },
    voice: 'Plain-spoken, concrete numbers.',
    site: 'https://brightwave.example',
    pitch:
      'Brightwave shows retailers what sells where: one live view of stores and stock, with forecasts merchandisers act on. Most retailers are live within two weeks.',
    description: 'One live view of every store, with forecasts you can act on.',
    topics: [
      {
        title: 'Markdown forecasting',
        entries: [
          {
            type: 'markdown',
            content:
              'Forecasts show a month ahead which lines will not sell through, so **smaller, earlier markdowns** replace the clearance.',
          },
          {
            type: 'text',
            content: 'A 120-store apparel chain cut end-of-season markdowns by 18% in a year.',
          },
        ],
      },
      {
        title: 'Pilots',
        entries: [
          {
            type: 'markdown',
            content: '- A **free 30-day pilot** on your own data\n- In as many stores as you choose',
          },
        ],
      },
      {
        title: 'Stock-outs',
        entries: [
          {
            type: 'text',
            content:
              'Replenishment alerts flag the stores that will run out of a line **two weeks** before they do.',
          },
          { type: 'text', content: 'Grocers cut empty shelves over the holidays by **nineteen percent**.' },
        ],
      },
    ],
  },
  {
    brandId: 'keelson',
    name: 'Keelson',
    colors: { primary: '#0f766e', accent: '#f59e0b' },
    voice: 'Calm and exact. Formal: no first names.',
    site: 'https://keelson.example',
    pitch:
      'Keelson shows where every shipment is and what its delay will do to your shelves. Planners act days earlier, and fewer stores run out.',
    description: 'Know which shelves a late shipment will empty, days before it does.',
    topics: [
      {
        title: 'Carrier tracking',
        entries: [
          {
            type: 'text',
            content: 'Carrier data from 300 ocean, rail and road carriers, updated every fifteen minutes.',
          },
          { type: 'markdown', content: '__Delay alerts__ name the stores that will run short, and when.' },
        ],
      },
      {
        title: 'Freight results',
        entries: [
          {
            type: 'text',
            content: 'A fashion retailer saw stock-outs from late shipments fall by 23% in two quarters.',
          },
        ],
      },
    ],
  },
];

/** Knowledge every brand may draw on. */
const SHARED: TopicSpec = {
  title: 'Working with us',
  entries: [{ type: 'text', content: 'A named specialist answers within one working day.' }],
};

export interface Fixture {
  brand: BrandSpec;
  pageType: (typeof PAGE_TYPES)[number];
  shape: (typeof SHAPES)[number];
  pageId: string;
  audienceId: string;
  /** The public page, from /p on. */
  url: string;
  preview: string;
  /** What the page must never show: the audience's context, the person's notes, other brands' knowledge. */
  secrets: string[];
  /** Domains whose raw form must not stand for a company. */
  domains: string[];
}

function ok<T extends { status: number; body: unknown }>(response: T, status: number): T {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response;
}

async function brandKnowledge(client: Client): Promise<void> {
  for (const brand of BRANDS) {
    ok(
      await client.request('PUT', `/v0/brands/${brand.brandId}`, {
        body: { name: brand.name, colors: brand.colors, voice: brand.voice, website: brand.site },
      }),
      201,
    );
  }
  for (const [brandIds, spec] of [
    ...BRANDS.flatMap((brand) => brand.topics.map((topic) => [[brand.brandId], topic] as const)),
    [[], SHARED] as const,
  ]) {
    const topic = ok(await client.post('/v0/topics', { title: spec.title, brandIds }), 201).body;
    for (const content of spec.entries) {
      ok(await client.post(`/v0/topics/${topic.topicId}/entries`, { content }), 201);
    }
  }
}

function otherBrandsText(brand: BrandSpec): string[] {
  return BRANDS.filter((other) => other !== brand).flatMap((other) => [
    other.name,
    ...other.topics.flatMap((topic) => [topic.title, ...topic.entries.map((entry) => entry.content)]),
  ]);
}

/** An audience whose guidance points at one topic of its brand's knowledge. */
export interface GuidedFixture {
  label: string;
  pageId: string;
  audienceId: string;
  /** The page's preview of version 1. */
  preview: string;
  content: { headline: string; subheadline: string; sections: { heading: string; body: string }[] };
  /** Version 0's subheadline: the page as it is. */
  baselineSubheadline: string;
  /** The topic the guidance points at: the page leads with it and its hero names it. */
  topic: string;
  /** Text of that topic which the first section shows. */
  firstShows: string;
  /** The guidance, none of which may show, and words of it that are its own. */
  secrets: string[];
  words: string[];
}

const GUIDED_PITCH = BRANDS[1] as BrandSpec;

const GUIDED = [
  {
    label: 'stock-outs and a pilot',
    pageType: 'inbound',
    account: { domain: 'globex-retail.example', name: 'Globex Retail' },
    context: 'Worried about holiday stock-outs in the Midwest… they want a pilot before Black Friday.',
    topic: 'Stock-outs',
    firstShows: 'Replenishment alerts flag the stores that will run out of a line two weeks before they do.',
    words: ['Midwest', 'Black Friday'],
  },
  {
    label: 'late markdowns',
    pageType: 'inbound',
    account: { domain: 'initrode-stores.example', name: 'Initrode Stores' },
    context: 'Their clearance sales eat the margin every January; they mark down too late.',
    topic: 'Markdown forecasting',
    firstShows: 'smaller, earlier markdowns',
    words: ['January', 'eat the margin'],
  },
  {
    label: 'a follow-up to a call about a pilot',
    pageType: 'call_followup',
    person: { name: 'Jane Doe', email: 'jane@globex-retail.example' },
    note: 'Call with Jane: she wants a 10-store pilot to start in March.',
    topic: 'Pilots',
    firstShows: 'A free 30-day pilot on your own data',
    words: ['10-store', 'March'],
  },
] as const;

/** The guided audiences, queued: two of one inbound page, and a follow-up's. */
async function queueGuided(client: Client) {
  const pages = new Map<string, string>();
  const queued = [];
  for (const spec of GUIDED) {
    let pageId = pages.get(spec.pageType);
    if (!pageId) {
      pageId = ok(
        await client.post('/v0/pages', {
          name: `Guided ${spec.pageType}`,
          pageType: spec.pageType,
          pageContext: GUIDED_PITCH.pitch,
          brandId: GUIDED_PITCH.brandId,
          actions: [{ actionId: 'talk', buttonTitle: 'Talk to us', actionType: 'form', purpose: 'A call' }],
          actionCardWidgets: [],
          scripts: [],
          metadata: { description: GUIDED_PITCH.description },
        }),
        201,
      ).body.pageId as string;
      pages.set(spec.pageType, pageId);
    }
    const audience: Record<string, unknown> = {};
    const secrets: string[] = [];
    if ('account' in spec) {
      audience.accountId = ok(await client.post('/v0/accounts', spec.account), 201).body.accountId;
      audience.supplementaryContext = spec.context;
      secrets.push(spec.context);
    } else {
      const person = ok(await client.post('/v0/persons', spec.person), 201).body;
      ok(await client.post(`/v0/persons/${person.personId}/logs`, { text: spec.note }), 201);
      audience.personId = person.personId;
      secrets.push(spec.note);
    }
    const { audienceId } = ok(await client.post(`/v0/pages/${pageId}/audiences`, audience), 201).body;
    queued.push({ spec, pageId, audienceId, secrets });
  }
  return queued;
}

async function readGuided(client: Client, queued: Awaited<ReturnType<typeof queueGuided>>) {
  const guided: GuidedFixture[] = [];
  for (const { spec, pageId, audienceId, secrets } of queued) {
    const versions = ok(await client.get(`/v0/pages/${pageId}/audiences/${audienceId}/versions`), 200).body
      .items as {
      versionNumber: number;
      versionId: string;
      state: string;
      content: GuidedFixture['content'];
    }[];
    const [latest, baseline] = [1, 0].map((n) => versions.find((version) => version.versionNumber === n));
    expect(latest?.state, JSON.stringify(latest)).toBe('draft');
    guided.push({
      label: spec.label,
      pageId,
      audienceId,
      preview: `/v0/pages/${pageId}/audiences/${audienceId}/versions/${latest?.versionId}/preview`,
      content: latest?.content as GuidedFixture['content'],
      baselineSubheadline: baseline?.content.subheadline ?? '',
      topic: spec.topic,
      firstShows: spec.firstShows,
      secrets,
      words: [...spec.words],
    });
  }
  return guided;
}

/** Makes the fifteen fixtures in a tenant of their own, generated and published, with their links, and the guided ones. */
export async function makeFixtures(
  server: TestServer,
): Promise<{ client: Client; fixtures: Fixture[]; guided: GuidedFixture[] }> {
  const client = await server.newTenant();
  await brandKnowledge(client);
  const queuedGuided = await queueGuided(client);
  const slug = (await getTenant(anyTables(server.database), client.tenantId)).slug;
  const pending: Omit<Fixture, 'url' | 'preview'>[] = [];
  for (const [b, brand] of BRANDS.entries()) {
    for (const [t, pageType] of PAGE_TYPES.entries()) {
      const shape = SHAPES[(t + b) % SHAPES.length] as Fixture['shape'];
      const n = pending.length + 1;
      const domain = `company-no-${n}.example`;
      const note = `Private note ${n}: the buyer is leaving at the end of the quarter.`;
      const context = `Confidential ${n}: they overpaid their last vendor and are angry about it.`;
      const page = ok(
        await client.post('/v0/pages', {
          name: `${['Orbit', 'Stores', 'Freight'][b]} plan ${n}`,
          pageType,
          pageContext: brand.pitch,
          brandId: brand.brandId,
          actions: [
            {
              actionId: 'talk',
              buttonTitle: 'Talk to us',
              actionType: 'form',
              purpose: 'A call with a specialist',
            },
            { actionId: 'site', buttonTitle: 'Visit the site', actionType: 'link', url: brand.site },
          ],
          headerActionId: 'talk',
          actionCardWidgets: [{ type: 'cta', title: 'Get a plan of your own', logos: [] }],
          scripts: [],
          metadata: { description: brand.description },
        }),
        201,
      ).body;
      ok(await client.post(`/v0/pages/${page.pageId}/publish`), 200);
      const audience: Record<string, unknown> = { supplementaryContext: context, autoPublish: true };
      const secrets = [context, ...otherBrandsText(brand)];
      if (shape === 'person at an account') {
        const person = ok(
          await client.post('/v0/persons', { name: `Robin Quill ${n}`, email: `robin.${n}@${domain}` }),
          201,
        ).body;
        ok(await client.post(`/v0/persons/${person.personId}/logs`, { text: note }), 201);
        audience.personId = person.personId;
        secrets.push(note);
      } else if (shape === 'account only') {
        audience.accountId = ok(await client.post('/v0/accounts', { domain }), 201).body.accountId;
      } else {
        audience.customName = `Visitors ${n}`;
      }
      const { audienceId } = ok(await client.post(`/v0/pages/${page.pageId}/audiences`, audience), 201).body;
      pending.push({ brand, pageType, shape, pageId: page.pageId, audienceId, secrets, domains: [domain] });
    }
  }
  await server.worker().drain();
  const fixtures: Fixture[] = [];
  for (const [index, fixture] of pending.entries()) {
    const path = `/quality/${index + 1}`;
    ok(
      await client.post('/v0/page_links', {
        path,
        target: { targetType: 'audience', audienceId: fixture.audienceId },
      }),
      201,
    );
    const versions = ok(
      await client.get(`/v0/pages/${fixture.pageId}/audiences/${fixture.audienceId}/versions`),
      200,
    ).body;
    const published = versions.items.find(
      (version: { versionNumber: number }) => version.versionNumber === 1,
    );
    expect(published.state, JSON.stringify(published)).toBe('published');
    fixtures.push({
      ...fixture,
      url: `/p/${slug}${path}`,
      preview: `/v0/pages/${fixture.pageId}/audiences/${fixture.audienceId}/versions/${published.versionId}/preview`,
    });
  }
  return { client, fixtures, guided: await readGuided(client, queuedGuided) };
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

/** What a reader sees of a page's body: its text, without tags, scripts or styles. */
export function visibleText(html: string): string {
  const body = html.slice(html.indexOf('<body'));
  return body
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<[^>]+>/g, '\n')
    .replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity)
    .replace(/[ \t]+/g, ' ')
    .replace(/\n\s*\n+/g, '\n')
    .trim();
}
