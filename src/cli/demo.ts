import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { backgroundWork } from '../background.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/connection.ts';
import { TenantDb } from '../db/tenant-db.ts';
import { Worker } from '../jobs/worker.ts';
import { createAccount } from '../resources/accounts/service.ts';
import type { Audience } from '../resources/audiences/schema.ts';
import type { PageLink } from '../resources/page-links/schema.ts';
import { createPageLink, liveLinkAt } from '../resources/page-links/service.ts';
import type { Page, PageCreate } from '../resources/pages/schema.ts';
import { createPage, getPage, publishPage, searchPageItems } from '../resources/pages/service.ts';
import type { Person } from '../resources/persons/schema.ts';
import { createPerson, listAllPersons } from '../resources/persons/service.ts';
import type { SessionEvent } from '../resources/sessions/schema.ts';
import { DEFAULT_TENANT_SLUG, getTenant, type Tenant } from '../resources/tenants/service.ts';
import type { TopicEntryCreate } from '../resources/topics/schema.ts';
import { addTopicEntry, createTopic, searchTopicItems } from '../resources/topics/service.ts';
import { resolveSecret } from '../secret.ts';
import { prepareDatabase } from '../server.ts';
import { AppError } from '../shared/errors.ts';
import { Signer } from '../shared/signing.ts';
import { createFileStorage } from '../storage.ts';
import { type ResourceNeeds, resourceNeeds } from '../wiring.ts';
import { createAudience, listPageAudiences } from '../workflows/audience-versions/service.ts';
import { submitForm } from '../workflows/enrichment/service.ts';
import { createTenantWithKey, type TenantWithKey } from '../workflows/tenant-setup/service.ts';
import { recordVisit } from '../workflows/visits/service.ts';

// The sample: Brightwave, a company selling retail analytics, personalizes its pages for the
// people it sells to. Every object is found by a natural key (a title, a name, an email, a path)
// before it is made, so that running the demo again reuses what the last run made.

const SITE = 'https://brightwave.example';

interface TopicSpec {
  title: string;
  purpose: string;
  entries: TopicEntryCreate['content'][];
}

const TOPICS: TopicSpec[] = [
  {
    title: 'Brightwave platform',
    purpose: 'What Brightwave does and for whom: draw on it for every page.',
    entries: [
      {
        type: 'markdown',
        content:
          'Brightwave is a retail analytics platform. It joins point-of-sale, e-commerce and inventory data into one live view of every store and channel, and tells merchandisers what to reorder, mark down or move.',
      },
      {
        type: 'text',
        content:
          'Connectors for Shopify, Salesforce Commerce Cloud, Lightspeed and 40 other systems; most retailers are live within two weeks.',
      },
      {
        type: 'text',
        content: 'Forecasts are accurate to within 6% at store-and-SKU level after eight weeks of history.',
      },
    ],
  },
  {
    title: 'Customer results',
    purpose: 'Proof points: use the one closest to the visitor’s industry.',
    entries: [
      {
        type: 'text',
        content:
          'A 120-store apparel chain cut end-of-season markdowns by 18% in its first year with Brightwave.',
      },
      {
        type: 'text',
        content: 'A regional grocer reduced fresh-food waste by 11% using daily store-level forecasts.',
      },
      {
        type: 'text',
        content:
          'An outdoor retailer raised online conversion by 9% by steering stock to its busiest regions.',
      },
    ],
  },
  {
    title: 'Plans and pricing',
    purpose: 'How Brightwave is sold; mention only when the visitor is evaluating.',
    entries: [
      {
        type: 'markdown',
        content:
          '**Growth**: up to 50 stores, weekly forecasts. **Scale**: unlimited stores, daily forecasts, a named analyst. Annual contracts; a 30-day pilot on your own data is free.',
      },
    ],
  },
];

interface PersonSpec {
  key: string;
  name: string;
  email: string;
  account: { domain: string; name: string };
  linkedinProfileUrl?: string;
}

const PERSONS: PersonSpec[] = [
  {
    key: 'jane',
    name: 'Jane Cooper',
    email: 'jane.cooper@globex-retail.example',
    account: { domain: 'globex-retail.example', name: 'Globex Retail' },
    linkedinProfileUrl: 'https://www.linkedin.com/in/jane-cooper-demo',
  },
  {
    key: 'tom',
    name: 'Tom Becker',
    email: 'tom.becker@globex-retail.example',
    account: { domain: 'globex-retail.example', name: 'Globex Retail' },
  },
  {
    key: 'marcus',
    name: 'Marcus Lee',
    email: 'marcus.lee@initech-stores.example',
    account: { domain: 'initech-stores.example', name: 'Initech Stores' },
  },
  {
    key: 'priya',
    name: 'Priya Raman',
    email: 'priya@umbrella-outfitters.example',
    account: { domain: 'umbrella-outfitters.example', name: 'Umbrella Outfitters' },
  },
  {
    key: 'sofia',
    name: 'Sofia Alvarez',
    email: 'sofia.alvarez@northwind-grocers.example',
    account: { domain: 'northwind-grocers.example', name: 'Northwind Grocers' },
  },
];

function pageSpec(
  name: string,
  pageType: PageCreate['pageType'],
  pageContext: string,
  description: string,
): PageCreate {
  return {
    name,
    pageType,
    pageContext,
    brandId: 'brightwave',
    actions: [
      {
        actionId: 'book-demo',
        buttonTitle: 'Book a demo',
        actionType: 'form',
        purpose: 'A 30-minute walk-through on the visitor’s own data',
        url: '',
      },
      {
        actionId: 'pricing',
        buttonTitle: 'See plans',
        actionType: 'link',
        purpose: 'Plans and pricing',
        url: `${SITE}/pricing`,
      },
    ],
    headerActionId: 'book-demo',
    actionCardWidgets: [{ type: 'cta', title: 'Start a free 30-day pilot on your own data', logos: [] }],
    scripts: [],
    footerLinks: [
      {
        title: 'Brightwave',
        links: [
          { text: 'About', url: `${SITE}/about` },
          { text: 'Privacy', url: `${SITE}/privacy` },
        ],
      },
    ],
    metadata: { title: `${name} | Brightwave`, description },
  };
}

interface AudienceSpec {
  path: string;
  /** A person's key, or a custom name for an audience that is not one person. */
  person?: string;
  customName?: string;
  context: string;
  /** How many visitor sessions the link gets when the demo makes it. */
  sessions: number;
  /** A visitor of the link fills in the form (with this person's address) when the demo makes it. */
  submitsForm?: boolean;
}

interface PageSpec {
  page: PageCreate;
  audiences: AudienceSpec[];
}

const PAGES: PageSpec[] = [
  {
    page: pageSpec(
      'Retail analytics platform',
      'inbound',
      'Brightwave shows retailers what sells where, and what to do about it: one live view of stores, e-commerce and stock, with forecasts that tell merchandisers what to reorder, mark down or move. Most retailers are live within two weeks.',
      'One live view of every store and channel, with forecasts you can act on.',
    ),
    audiences: [
      {
        path: '/platform',
        customName: 'Retail visitors',
        context: 'Anonymous visitors from retail; keep it general.',
        sessions: 9,
      },
      {
        path: '/platform/globex',
        person: 'jane',
        context: 'Globex runs 120 apparel stores and struggles with end-of-season markdowns.',
        sessions: 6,
        submitsForm: true,
      },
      {
        path: '/platform/initech',
        person: 'marcus',
        context: 'Initech is moving from spreadsheets to a real planning tool this year.',
        sessions: 4,
      },
      {
        path: '/platform/umbrella',
        person: 'priya',
        context: 'Umbrella Outfitters sells outdoor gear online and in 35 stores.',
        sessions: 5,
      },
    ],
  },
  {
    page: pageSpec(
      'Holiday readiness review',
      'outbound',
      'A free review of your holiday stock plan: Brightwave’s analysts run last season through our forecasts and show where stock will run short or sit unsold, store by store, before the rush begins.',
      'Find the gaps in your holiday stock plan before your customers do.',
    ),
    audiences: [
      {
        path: '/holiday/northwind',
        person: 'sofia',
        context: 'Northwind Grocers: fresh food, short shelf lives, 60 stores.',
        sessions: 5,
        submitsForm: true,
      },
      {
        path: '/holiday/globex',
        person: 'tom',
        context: 'Tom runs Globex’s supply chain; he cares about stock-outs, not dashboards.',
        sessions: 3,
      },
    ],
  },
  {
    page: pageSpec(
      'Following up on our call',
      'call_followup',
      'A recap of a sales call: what we heard, how Brightwave answers it, what a pilot would look like, and the next step.',
      'What we discussed, and what a pilot would look like.',
    ),
    audiences: [
      {
        path: '/follow-up/jane-cooper',
        person: 'jane',
        context: 'Call on Tuesday: Jane asked about markdown forecasting and a pilot in 10 stores.',
        sessions: 2,
      },
    ],
  },
];

/** What the run made, and what it found from an earlier run. */
class Tally {
  private readonly counts = new Map<string, { made: number; found: number }>();

  note(kind: string, made: boolean): void {
    const count = this.counts.get(kind) ?? { made: 0, found: 0 };
    if (made) count.made++;
    else count.found++;
    this.counts.set(kind, count);
  }

  lines(): string[] {
    return [...this.counts].map(([kind, { made, found }]) =>
      found === 0 ? `${made} ${kind}` : `${made + found} ${kind} (${found} from an earlier run)`,
    );
  }
}

/** A small seeded generator: the sample looks the same on every database. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function ensureTopic(db: TenantDb, spec: TopicSpec, index: number, tally: Tally): Promise<void> {
  const found = await searchTopicItems(db, { query: spec.title }, { limit: 100 });
  if (found.items.some((topic) => topic.title === spec.title)) return tally.note('topics', false);
  const topic = await createTopic(db, {
    title: spec.title,
    purpose: spec.purpose,
    sortOrder: index,
    isDefault: false,
  });
  for (const [order, content] of spec.entries.entries()) {
    await addTopicEntry(db, topic.topicId, { content, sortOrder: order });
  }
  tally.note('topics', true);
}

async function ensureAccount(db: TenantDb, spec: PersonSpec['account'], tally: Tally): Promise<void> {
  try {
    await createAccount(db, spec);
    tally.note('accounts', true);
  } catch (error) {
    // The domain has an account already: from an earlier run, or the tenant knew the company.
    if (!(error instanceof AppError && error.code === 'conflict')) throw error;
    tally.note('accounts', false);
  }
}

async function ensurePerson(
  db: TenantDb,
  needs: ResourceNeeds,
  spec: PersonSpec,
  tally: Tally,
): Promise<Person> {
  const existing = (await listAllPersons(db, { email: spec.email }, { limit: 1 })).items[0];
  tally.note('persons', !existing);
  if (existing) return existing;
  return createPerson(
    db,
    {
      name: spec.name,
      email: spec.email,
      ...(spec.linkedinProfileUrl ? { linkedinProfileUrl: spec.linkedinProfileUrl } : {}),
    },
    needs.persons.accountOf,
  );
}

/** The demo page of this name that is not archived, published; made when there is none. */
async function ensurePage(db: TenantDb, needs: ResourceNeeds, spec: PageCreate, tally: Tally): Promise<Page> {
  const found = await searchPageItems(db, spec.name, 100);
  for (const item of found.items.filter((candidate) => candidate.name === spec.name)) {
    const page = await getPage(db, item.pageId);
    if (page.status === 'archived') continue;
    tally.note('pages', false);
    return page.status === 'published' ? page : publishPage(db, page.pageId);
  }
  const page = await createPage(db, spec, needs.pages.images);
  tally.note('pages', true);
  return publishPage(db, page.pageId);
}

async function ensureAudience(
  db: TenantDb,
  page: Page,
  spec: AudienceSpec,
  person: Person | undefined,
  tally: Tally,
): Promise<Audience> {
  const audiences = (await listPageAudiences(db, page.pageId, { limit: 100 })).items;
  const existing = audiences.find(
    (audience) =>
      audience.archivedAt === null &&
      (person ? audience.personId === person.personId : audience.customName === spec.customName),
  );
  tally.note('audiences', !existing);
  if (existing) return existing;
  return createAudience(db, page.pageId, {
    ...(person ? { personId: person.personId } : { customName: spec.customName }),
    supplementaryContext: spec.context,
    autoPublish: true,
  });
}

/** The live link at the path, or a new one to the audience; `made` tells which, so visits go only to new ones. */
async function ensureLink(
  db: TenantDb,
  needs: ResourceNeeds,
  path: string,
  audience: Audience,
  tally: Tally,
): Promise<{ link: PageLink; made: boolean }> {
  const existing = await liveLinkAt(db, path);
  tally.note('page links', !existing);
  if (existing) return { link: existing, made: false };
  const link = await createPageLink(
    db,
    { path, target: { targetType: 'audience', audienceId: audience.audienceId } },
    needs.pageLinks.assertTarget,
  );
  return { link, made: true };
}

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

/** One visitor's session of realistic shape: some bounce, most read a while, a few click through. */
function sessionEvents(random: () => number, start: number): SessionEvent[] {
  if (random() < 0.25)
    return [
      { type: 'session_start', at: start },
      { type: 'time', at: start + 4000, ms: 4000 },
    ];
  const seconds = 20 + Math.floor(random() * 220);
  const events: SessionEvent[] = [{ type: 'session_start', at: start }];
  for (let i = 0, n = 1 + Math.floor(random() * 4); i < n; i++) {
    events.push({ type: 'interaction', at: start + (i + 1) * 5000 });
  }
  events.push({ type: 'scroll', at: start + 15_000, depth: 30 + Math.floor(random() * 71) });
  if (random() < 0.35) events.push({ type: 'cta_click', at: start + 30_000, actionId: 'book-demo' });
  events.push({ type: 'time', at: start + seconds * 1000, ms: seconds * 1000 });
  return events;
}

async function addSessions(
  db: TenantDb,
  page: Page,
  link: PageLink,
  count: number,
  random: () => number,
  now: number,
  tally: Tally,
): Promise<string | undefined> {
  let last: string | undefined;
  for (let i = 0; i < count; i++) {
    const start = now - Math.floor(random() * 14 * DAY) - HOUR;
    const sessionId = `demo-${randomUUID()}`;
    const visit = {
      sessionId,
      pageId: page.pageId,
      audienceId: link.target.audienceId,
      pageLinkId: link.pageLinkId,
    };
    await recordVisit(db, visit, sessionEvents(random, start), start);
    tally.note('visitor sessions', true);
    last = sessionId;
  }
  return last;
}

/** The `default` tenant: made by prepareDatabase on an empty database, or here when only others exist. */
async function defaultTenant(database: Database): Promise<{ tenant: Tenant; created?: TenantWithKey }> {
  try {
    return { tenant: await getTenant(database.db, DEFAULT_TENANT_SLUG) };
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'not_found')) throw error;
    const created = await createTenantWithKey(database, {
      name: 'Default',
      slug: DEFAULT_TENANT_SLUG,
    });
    return { tenant: created, created };
  }
}

/** Runs every job due now (generation, enrichment, deliveries) and what they enqueue, until none is left. */
async function runJobs(config: Config, database: Database): Promise<void> {
  const logger = pino({ level: config.logLevel }, pino.destination(2));
  const { handlers } = backgroundWork(config, await createFileStorage(config));
  const worker = new Worker({ database, handlers, schedules: [], logger });
  while ((await worker.drain()) > 0);
}

/**
 * `tailor demo`: fills tenant `default` with a sample (topics, published pages, persons at
 * accounts, audiences generated and published, page links, visitor sessions and two form
 * submissions) and prints the public addresses to open.
 */
export async function demo(config: Config): Promise<void> {
  const database = await prepareDatabase(config);
  try {
    const { tenant, created } = await defaultTenant(database);
    const db = new TenantDb(tenant.tenantId, database.db, database.dialect);
    const needs = resourceNeeds({ signer: new Signer(resolveSecret(config)), publicUrl: config.publicUrl });
    const tally = new Tally();
    const random = seeded(20_251_121);
    const now = Date.now();

    for (const [index, topic] of TOPICS.entries()) await ensureTopic(db, topic, index, tally);
    const domains = new Map(PERSONS.map((spec) => [spec.account.domain, spec.account]));
    for (const account of domains.values()) await ensureAccount(db, account, tally);
    const persons = new Map<string, Person>();
    for (const spec of PERSONS) persons.set(spec.key, await ensurePerson(db, needs, spec, tally));

    const links: { page: Page; spec: AudienceSpec; link: PageLink; made: boolean; audience: Audience }[] = [];
    for (const { page: pageInput, audiences } of PAGES) {
      const page = await ensurePage(db, needs, pageInput, tally);
      for (const spec of audiences) {
        const person = spec.person ? persons.get(spec.person) : undefined;
        const audience = await ensureAudience(db, page, spec, person, tally);
        links.push({ page, spec, audience, ...(await ensureLink(db, needs, spec.path, audience, tally)) });
      }
    }
    // Generation publishes each audience's first personalized version (autoPublish).
    await runJobs(config, database);

    // Visits and forms only for links made now: a second run must not double the analytics.
    for (const { page, spec, link, made } of links) {
      if (!made) continue;
      const sessionId = await addSessions(db, page, link, spec.sessions, random, now, tally);
      const person = spec.person ? persons.get(spec.person) : undefined;
      if (spec.submitsForm && person?.email) {
        const origin = {
          pageId: page.pageId,
          audienceId: link.target.audienceId,
          pageLinkId: link.pageLinkId,
        };
        const fields = {
          name: person.name,
          email: person.email,
          message: 'Could we see this on our own data?',
        };
        await submitForm(db, origin, { email: person.email, fields, ...(sessionId ? { sessionId } : {}) });
        tally.note('form submissions', true);
      }
    }
    await runJobs(config, database);

    const out = [
      `Tailor demo: tenant "${tenant.slug}" (${tenant.tenantId}) holds`,
      ...tally.lines().map((line) => `  ${line}`),
      ...(created ? [`API key of the new tenant (shown once, keep it): ${created.apiKey}`] : []),
      '',
      'Open these while `tailor serve` is running:',
      ...links.map(
        ({ link, audience }) =>
          `  ${config.publicUrl}/p/${tenant.slug}${link.path}  (${audience.effectiveName})`,
      ),
      '',
      'Analytics, persons and accounts are in the API: see docs/forms.md ("Try it").',
      '',
    ];
    process.stdout.write(out.join('\n'));
  } finally {
    await database.close();
  }
}
