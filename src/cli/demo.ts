import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { backgroundWork } from '../background.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/connection.ts';
import type { TenantDb } from '../db/tenant-db.ts';
import { Worker } from '../jobs/worker.ts';
import { accountIdForDomain, createAccount } from '../resources/accounts/service.ts';
import { createAsset } from '../resources/assets/service.ts';
import type { Audience } from '../resources/audiences/schema.ts';
import { storedBaseline } from '../resources/audiences/service.ts';
import { brandProfile, putBrand } from '../resources/brands/service.ts';
import { ImagePool } from '../resources/files/image-pool.ts';
import { type FileServices, type LinkSigner, uploadFile } from '../resources/files/service.ts';
import type { FileStorage } from '../resources/files/storage.ts';
import type { PageLink } from '../resources/page-links/schema.ts';
import { createPageLink, getPageLink, liveLinkAt } from '../resources/page-links/service.ts';
import type { Page, PageCreate } from '../resources/pages/schema.ts';
import { createPage, getPage, publishPage, searchPageItems } from '../resources/pages/service.ts';
import { addNote } from '../resources/persons/log-service.ts';
import type { Person } from '../resources/persons/schema.ts';
import { createPerson, listAllPersons } from '../resources/persons/service.ts';
import type { SessionEvent } from '../resources/sessions/schema.ts';
import { DEFAULT_TENANT_SLUG, getTenant, type Tenant } from '../resources/tenants/service.ts';
import { addTopicEntry, createTopic, searchTopicItems } from '../resources/topics/service.ts';
import { resolveSecret } from '../secret.ts';
import { prepareDatabase } from '../server.ts';
import { differences, runningServer, type ServerRecord } from '../server-record.ts';
import type { Arm } from '../shared/arm.ts';
import { AppError } from '../shared/errors.ts';
import { PagesOrigin } from '../shared/pages-origin.ts';
import { seededRandom } from '../shared/seeded-random.ts';
import { Signer } from '../shared/signing.ts';
import { createFileStorage } from '../storage.ts';
import { type ResourceNeeds, resourceNeeds } from '../wiring.ts';
import { createAudience, getAudience, listPageAudiences } from '../workflows/audience-versions/service.ts';
import { submitForm } from '../workflows/enrichment/service.ts';
import { createTenantWithKey, type TenantWithKey } from '../workflows/tenant-setup/service.ts';
import { recordVisit } from '../workflows/visits/service.ts';
import {
  type AudienceSpec,
  BRANDS,
  type BrandSpec,
  PAGES,
  PERSONS,
  type PersonSpec,
  TOPICS,
  type TopicSpec,
} from './demo-sample.ts';

// Every object of the sample (src/cli/demo-sample.ts) is found by a natural key (a brand id, a
// title, a name, an email, a path) before it is made, so that running the demo again reuses what the
// last run made.

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

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

/** A square mark with the brand's initial: an SVG logo of the sample's own. */
function wordmark(spec: BrandSpec): Buffer {
  const initial = spec.profile.name.charAt(0).toUpperCase();
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" rx="16" fill="${spec.logo.background}"/><text x="32" y="43" font-family="Helvetica, Arial, sans-serif" font-size="32" font-weight="700" fill="${spec.logo.text}" text-anchor="middle">${initial}</text></svg>`,
  );
}

/**
 * How often an engaged visitor clicks the call to action, per arm: the sample's personalized pages
 * convert better than the baseline, so that the lift of the holdout audience has a story to tell
 * (an audience may say otherwise, `ctaChance`).
 */
const CTA_CHANCE: Record<Arm, number> = { personalized: 0.33, baseline: 0.27 };

/** One visitor's session of realistic shape: some bounce, most read a while, a few click through. */
function sessionEvents(
  random: () => number,
  start: number,
  arm: Arm,
  ctaChance = CTA_CHANCE,
): SessionEvent[] {
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
  if (random() < ctaChance[arm])
    events.push({ type: 'cta_click', at: start + 30_000, actionId: 'book-demo' });
  events.push({ type: 'time', at: start + seconds * 1000, ms: seconds * 1000 });
  return events;
}

interface DemoSession {
  sessionId: string;
  arm: Arm;
}

interface MadeLink {
  page: Page;
  spec: AudienceSpec;
  audience: Audience;
  link: PageLink;
  made: boolean;
}

/** Makes the sample in one tenant, reusing what an earlier run made. */
class Sample {
  readonly tally = new Tally();
  private readonly random = seededRandom(20_251_121);

  constructor(
    private readonly db: TenantDb,
    private readonly needs: ResourceNeeds,
    private readonly files: FileServices,
  ) {}

  async brand(spec: BrandSpec): Promise<void> {
    const existing = await brandProfile(this.db, spec.brandId);
    this.tally.note('brands', !existing);
    if (existing) return;
    const file = await uploadFile(this.db, this.files, {
      contentType: 'image/svg+xml',
      body: wordmark(spec),
    });
    const logo = await createAsset(this.db, this.needs.assets.files, {
      assetType: 'image',
      name: `${spec.profile.name} logo`,
      purpose: 'logo',
      fileId: file.fileId,
    });
    await putBrand(
      this.db,
      spec.brandId,
      { ...spec.profile, logoAssetId: logo.assetId },
      this.needs.brands.checkLogo,
    );
  }

  async topic(spec: TopicSpec, index: number): Promise<void> {
    const found = await searchTopicItems(this.db, { query: spec.title }, { limit: 100 });
    if (found.items.some((topic) => topic.title === spec.title)) return this.tally.note('topics', false);
    const topic = await createTopic(this.db, {
      title: spec.title,
      purpose: spec.purpose,
      sortOrder: index,
      isDefault: false,
      brandIds: spec.brandIds,
    });
    for (const [order, content] of spec.entries.entries()) {
      await addTopicEntry(this.db, topic.topicId, { content, sortOrder: order });
    }
    this.tally.note('topics', true);
  }

  async account(spec: PersonSpec['account']): Promise<void> {
    try {
      await createAccount(this.db, spec);
      this.tally.note('accounts', true);
    } catch (error) {
      // The domain has an account already: from an earlier run, or the tenant knew the company.
      if (!(error instanceof AppError && error.code === 'conflict')) throw error;
      this.tally.note('accounts', false);
    }
  }

  async person(spec: PersonSpec): Promise<Person> {
    const existing = (await listAllPersons(this.db, { email: spec.email }, { limit: 1 })).items[0];
    this.tally.note('persons', !existing);
    if (existing) return existing;
    const person = await createPerson(
      this.db,
      {
        name: spec.name,
        email: spec.email,
        ...(spec.linkedinProfileUrl ? { linkedinProfileUrl: spec.linkedinProfileUrl } : {}),
      },
      this.needs.persons.accountOf,
    );
    if (spec.note) await addNote(this.db, person.personId, spec.note);
    return person;
  }

  /** The sample page of this name that is not archived, published; made when there is none. */
  async page(spec: PageCreate): Promise<Page> {
    const found = await searchPageItems(this.db, spec.name, 100);
    for (const item of found.items.filter((candidate) => candidate.name === spec.name)) {
      const page = await getPage(this.db, item.pageId);
      if (page.status === 'archived') continue;
      this.tally.note('pages', false);
      return page.status === 'published' ? page : publishPage(this.db, page.pageId);
    }
    const page = await createPage(this.db, spec, this.needs.pages.images);
    this.tally.note('pages', true);
    return publishPage(this.db, page.pageId);
  }

  async audience(page: Page, spec: AudienceSpec, persons: Map<string, Person>): Promise<Audience> {
    const person = spec.person ? persons.get(spec.person) : undefined;
    const accountId = spec.account ? await accountIdForDomain(this.db, spec.account) : undefined;
    const audiences = (await listPageAudiences(this.db, page.pageId, { limit: 100 })).items;
    const existing = audiences.find(
      (audience) =>
        audience.archivedAt === null &&
        (person
          ? audience.personId === person.personId
          : accountId
            ? audience.accountId === accountId
            : audience.customName === spec.customName),
    );
    this.tally.note('audiences', !existing);
    if (existing) return existing;
    return createAudience(
      this.db,
      page.pageId,
      {
        ...(person
          ? { personId: person.personId }
          : accountId
            ? { accountId }
            : { customName: spec.customName }),
        supplementaryContext: spec.context,
        autoPublish: true,
        holdoutPercent: spec.holdoutPercent ?? 0,
      },
      Date.now(),
    );
  }

  /** The live link at the path, or a new one to the audience; `made` tells which, so visits go only to new ones. */
  async link(path: string, audience: Audience): Promise<{ link: PageLink; made: boolean }> {
    const existing = await liveLinkAt(this.db, path, null);
    this.tally.note('page links', !existing);
    if (existing)
      return { link: await getPageLink(this.db, existing.pageLinkId, this.needs.pageLinks), made: false };
    const link = await createPageLink(
      this.db,
      { path, target: { targetType: 'audience', audienceId: audience.audienceId } },
      this.needs.pageLinks,
    );
    return { link, made: true };
  }

  /**
   * Visits to a link made now, spread over the last two weeks; with a holdout, that share of them
   * served the baseline. Answers the last session, for a form submitted during it.
   */
  async sessions(made: MadeLink, now: number): Promise<DemoSession | undefined> {
    let last: DemoSession | undefined;
    for (let i = 0; i < made.spec.sessions; i++) {
      const start = now - Math.floor(this.random() * 14 * DAY) - HOUR;
      const arm: Arm = this.random() * 100 < (made.spec.holdoutPercent ?? 0) ? 'baseline' : 'personalized';
      const visit = {
        sessionId: `demo-${randomUUID()}`,
        pageId: made.page.pageId,
        audienceId: made.link.target.audienceId,
        pageLinkId: made.link.pageLinkId,
        arm,
      };
      await recordVisit(this.db, visit, sessionEvents(this.random, start, arm, made.spec.ctaChance), start);
      this.tally.note('visitor sessions', true);
      last = visit;
    }
    return last;
  }

  /** The version a visitor of the link was served in `arm`: the published one, or version 0. */
  async versionShown(made: MadeLink, arm: Arm): Promise<string> {
    const { pageId } = made.page;
    const { audienceId } = made.link.target;
    if (arm === 'baseline') return (await storedBaseline(this.db, audienceId)).versionId;
    return (await getAudience(this.db, pageId, audienceId)).publishedVersion.versionId;
  }

  async form(made: MadeLink, person: Person, session: DemoSession | undefined): Promise<void> {
    if (!person.email) return;
    const arm = session?.arm ?? 'personalized';
    const origin = {
      pageId: made.page.pageId,
      audienceId: made.link.target.audienceId,
      pageLinkId: made.link.pageLinkId,
      arm,
      versionId: await this.versionShown(made, arm),
    };
    const fields = { name: person.name, email: person.email, message: 'Could we see this on our own data?' };
    const sessionId = session?.sessionId;
    await submitForm(this.db, origin, { email: person.email, fields, ...(sessionId ? { sessionId } : {}) });
    this.tally.note('form submissions', true);
  }
}

/** The `default` tenant: made by prepareDatabase on an empty database, or here when only others exist. */
async function defaultTenant(database: Database): Promise<{ tenant: Tenant; created?: TenantWithKey }> {
  try {
    return { tenant: await getTenant(database.acrossTenants(), DEFAULT_TENANT_SLUG) };
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'not_found')) throw error;
    const created = await createTenantWithKey(database, { name: 'Default', slug: DEFAULT_TENANT_SLUG });
    return { tenant: created, created };
  }
}

/** Runs every job due now (generation, enrichment, deliveries) and what they enqueue, until none is left. */
async function runJobs(config: Config, database: Database, storage: FileStorage): Promise<void> {
  const logger = pino({ level: config.logLevel }, pino.destination(2));
  const { handlers } = backgroundWork(config, storage);
  const worker = new Worker({ database, handlers, schedules: [], logger });
  while ((await worker.drain()) > 0);
}

/**
 * The demo fills the database of its own environment and prints addresses from it; a server running
 * from the same data directory with another database or other addresses would see none of it, or
 * not answer at them, so the demo says so and stops before it writes anything.
 */
function refuseAnotherEnvironment(server: ServerRecord | undefined, config: Config): void {
  const differing = server ? differences(server, config) : [];
  if (differing.length === 0) return;
  const lines = differing.map(
    ({ variable, server: theirs, here }) => `  ${variable}: the server uses ${theirs}, this command ${here}`,
  );
  throw new AppError(
    'validation_failed',
    [
      `a Tailor server (pid ${server?.pid}) is running from ${config.dataDir} with another environment:`,
      ...lines,
      'Run the demo with the environment the server was started with (the same variables as `npm start`).',
    ].join('\n'),
  );
}

/**
 * `tailor demo`: fills tenant `default` with a sample (two brands with their logos and topics,
 * published pages, persons at accounts, audiences generated and published, page links, visitor
 * sessions and two form submissions) and prints the public addresses to open.
 */
export async function demo(config: Config): Promise<void> {
  const server = runningServer(config);
  refuseAnotherEnvironment(server, config);
  const database = await prepareDatabase(config);
  const images = new ImagePool();
  try {
    const { tenant, created } = await defaultTenant(database);
    const db = database.forTenant(tenant.tenantId);
    const links: LinkSigner = { signer: new Signer(resolveSecret(config)), publicUrl: config.publicUrl };
    const storage = await createFileStorage(config);
    const pages = new PagesOrigin(config.pagesUrl);
    const log = pino({ level: config.logLevel }, pino.destination(2));
    const needs = resourceNeeds({ ...links, database, pages });
    const sample = new Sample(db, needs, { ...links, storage, images, database, log });
    const now = Date.now();

    for (const brand of BRANDS) await sample.brand(brand);
    for (const [index, topic] of TOPICS.entries()) await sample.topic(topic, index);
    for (const account of new Map(PERSONS.map((spec) => [spec.account.domain, spec.account])).values()) {
      await sample.account(account);
    }
    const persons = new Map<string, Person>();
    for (const spec of PERSONS) persons.set(spec.key, await sample.person(spec));

    const made: MadeLink[] = [];
    for (const { page: pageInput, audiences } of PAGES) {
      const page = await sample.page(pageInput);
      for (const spec of audiences) {
        const audience = await sample.audience(page, spec, persons);
        made.push({ page, spec, audience, ...(await sample.link(spec.path, audience)) });
      }
    }
    // Generation publishes each audience's first personalized version (autoPublish).
    await runJobs(config, database, storage);

    // Visits and forms only for links made now: a second run must not double the analytics.
    for (const link of made.filter((candidate) => candidate.made)) {
      const session = await sample.sessions(link, now);
      const person = link.spec.person ? persons.get(link.spec.person) : undefined;
      if (link.spec.submitsForm && person) await sample.form(link, person, session);
    }
    await runJobs(config, database, storage);

    const out = [
      `Tailor demo: tenant "${tenant.slug}" (${tenant.tenantId}) holds`,
      ...sample.tally.lines().map((line) => `  ${line}`),
      ...(created ? [`API key of the new tenant (shown once, keep it): ${created.apiKey}`] : []),
      '',
      `The console, to see and change all of it (sign in with an API key of the tenant): ${config.publicUrl}/console`,
      '',
      server
        ? 'Open these (the server is running with this environment):'
        : 'Open these once the server runs with this same environment (`npm start`):',
      ...made.map(({ link, audience }) => `  ${link.url}  (${audience.effectiveName})`),
      '',
      'Analytics, persons and accounts are in the API: see docs/forms.md ("Try it").',
      ...made
        .filter(({ spec }) => spec.holdoutPercent)
        .map(
          ({ page, audience, spec }) =>
            `Lift of "${audience.effectiveName}" over its ${spec.holdoutPercent} % holdout (docs/analytics.md): GET /v0/pages/${page.pageId}/analytics/audiences/${audience.audienceId}/lift`,
        ),
      '',
    ];
    process.stdout.write(out.join('\n'));
    // The logos' previews are made in the background.
    await images.idle();
  } finally {
    await images.close();
    await database.close();
  }
}
