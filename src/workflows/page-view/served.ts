import { createHash } from 'node:crypto';
import { constants, gzipSync } from 'node:zlib';
import type { Database } from '../../db/connection.ts';
import type { PerTurn } from '../../db/per-turn.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { Arm } from '../../shared/arm.ts';
import type { PagesOrigin } from '../../shared/pages-origin.ts';
import type { Signer } from '../../shared/signing.ts';
import { addressKey, originOf, type PageRequest, pageAddressOf, requestedPage } from './address.ts';
import { visitorArm } from './holdout.ts';
import { resolveImageUrls } from './images.ts';
import { imageRefsOf, renderPage } from './render.ts';
import type { ServedCache } from './served-cache.ts';
import {
  findGeneration,
  findGenerationAt,
  findServed,
  keepServed,
  retireServed,
  type ServedRead,
  type ServedRow,
  type ServedTables,
  type TenantGeneration,
} from './served-store.ts';
import { holdoutInEffect, resolvePageView } from './service.ts';

/**
 * The served-page read model (docs/public-pages.md): a page view is one read of the page as it was
 * rendered, kept per address and arm with its gzip bytes and ETag, valid while its tenant's serving
 * generation is the one it was built at. Every change to what a page shows bumps that generation in
 * its own transaction (migration 0025's triggers), so the next request on any node renders again.
 */

/** What a page's token names, but its expiry: the same for every visitor of a link and arm. */
export interface TokenClaims {
  tenantId: string;
  pageId: string;
  audienceId: string;
  pageLinkId: string;
  arm: Arm;
  /** The version the page shows. */
  versionId: string;
  /** The holdout share in effect, 0-50, from which the visitor's arm was chosen. */
  holdoutPercent: number;
}

/** What a visitor's page carries for the visitor side (src/public): its token, and the tracker. */
export interface PageVisits {
  trackerSrc: string;
  /** How long a token is valid: a kept page is rebuilt once less than half of that is left. */
  tokenValidMs: number;
  issueToken(claims: TokenClaims, expiresAt: number): string;
}

export interface Serving {
  database: Database;
  /** What this node last read of each address it served. */
  kept: ServedCache;
  /** The tenants' serving generations, read once per turn of the event loop: generationsOf. */
  generations: PerTurn<string, Promise<number | undefined>>;
  pages: PagesOrigin;
  signer: Signer;
  visits: PageVisits;
}

/** A page as served: the same bytes for every visitor of its address and arm. */
export interface ServedPage {
  /** The page in the encoding the request takes: its gzip bytes, or its html. */
  body: string | Buffer;
  gzip: boolean;
  /** A hash of the html, for the ETag of each of its encodings. */
  etag: string;
  /** The address it was found at: its origin and its visitor's cookie depend on it. */
  address: PageRequest;
  /** The visitor id that chose the arm, to keep in the visitor's cookie; none without a holdout. */
  visitorId: string | undefined;
}

export type ServedAnswer = { served: ServedPage } | { redirect: string } | { notFound: true };

/** The visitor's id, from the cookie that the page at `address` keeps it in. */
export type VisitorIdAt = (address: PageRequest) => string | undefined;

/** What a page is asked for with: its Host and path, and whether the client takes gzip. */
export interface PageAsk {
  host: string;
  url: string;
  gzip: boolean;
}

/**
 * A kept page is served while more than half of its token's validity is left: a visitor's token
 * then lasts at least that long (3.5 days of TOKEN_VALID_MS' 7), and a page is signed and rendered
 * again at most twice a week when nothing changes.
 */
function fresh(row: ServedRead, tokenValidMs: number, now: number): boolean {
  return row.token_expires_at - now > tokenValidMs / 2;
}

/** The page served at the request's Host and path, to the visitor whose id `visitorIdAt` reads. */
export async function servedPage(
  serving: Serving,
  request: PageAsk,
  visitorIdAt: VisitorIdAt,
  now = Date.now(),
): Promise<ServedAnswer> {
  const asked = requestedPage(serving.pages, request.host, request.url);
  if (!('page' in asked)) return asked;
  const rows = await currentRows(serving, asked.key, request.gzip);
  const [any] = rows;
  if (!any) return build(serving, request, asked, visitorIdAt, now);
  const { arm, visitorId } = visitorArm(
    serving.signer,
    { audienceId: any.audience_id, holdoutPercent: any.holdout_percent },
    () => visitorIdAt(asked.page),
  );
  const row = rows.find((candidate) => candidate.arm === arm);
  if (!row || !fresh(row, serving.visits.tokenValidMs, now)) {
    serving.kept.forget(asked.key);
    return build(serving, request, asked, () => visitorId, now);
  }
  const page = { body: row.body, gzip: request.gzip, etag: row.etag, address: asked.page, visitorId };
  return { served: page };
}

/**
 * Each tenant's serving generation, read once per turn of the event loop and shared by every view
 * of the turn (Database.perTurn): one read, or on PostgreSQL one round trip, per tenant and turn
 * rather than per view. A view still sees every change committed before it was sent, so a change
 * shows on every node's next request.
 */
export function generationsOf(database: Database): PerTurn<string, Promise<number | undefined>> {
  const db = database.acrossTenants<ServedTables>();
  return database.perTurn((tenantId: string) => findGeneration(db, tenantId));
}

/**
 * Ends every page kept of the tenant, in the caller's transaction: once it commits, no node serves
 * what it rendered or read before (its generation has moved on), nothing rendered before is left
 * in served_pages, and none is kept after (keepServed). For a change that must leave no rendering
 * behind, not only none served: a person's erasure.
 */
export function retireServedPages(db: TenantDb): Promise<void> {
  return retireServed(db);
}

/**
 * The rows kept at `key` that are current, both arms' (so that the visitor's arm is chosen from what
 * they hold), their body in the request's encoding: those this node read last while their tenant's
 * generation is still theirs (one read of that generation), else read again (one statement).
 */
async function currentRows(serving: Serving, key: string, gzip: boolean): Promise<ServedRead[]> {
  const known = serving.kept.get(key, gzip);
  if (known && (await serving.generations.get(known.tenantId)) === known.generation) return known.rows;
  const rows = await findServed(serving.database.acrossTenants<ServedTables>(), key, gzip);
  serving.kept.keep(key, gzip, rows);
  return rows;
}

/** A page rendered for a request that missed: both encodings, and what chose its arm. */
interface Rendered {
  row: ServedRow;
  address: PageRequest;
  visitorId: string | undefined;
  /** The generation and tenant the page was rendered at; undefined when it was not to be kept. */
  keptAt: TenantGeneration | undefined;
}

type Rendering = { rendered: Rendered } | { redirect: string } | { notFound: true };

/**
 * Renderings under way in this process, by address key: simultaneous misses of one page wait for
 * the first one's rather than each rendering it. At most MAX_RENDERINGS are shared at once; a miss
 * past that renders on its own.
 */
const renderings = new Map<string, Promise<Rendering>>();
const MAX_RENDERINGS = 1_000;

/** A rendered page as one request is sent it: in its encoding, with its visitor's id. */
function servedOf(rendered: Rendered, gzip: boolean, visitorId: string | undefined): ServedAnswer {
  const { row, address } = rendered;
  return { served: { body: gzip ? row.gzip : row.html, gzip, etag: row.etag, address, visitorId } };
}

/**
 * The page for a request that found nothing kept. When the same address is being rendered already,
 * that rendering serves this request too, if it is of the visitor's arm and still current.
 */
async function build(
  serving: Serving,
  request: PageAsk,
  asked: { page: PageRequest; key: string },
  visitorIdAt: VisitorIdAt,
  now: number,
): Promise<ServedAnswer> {
  const under = renderings.get(asked.key);
  const shared = under && (await sharedRendering(serving, asked.page, under, visitorIdAt));
  if (shared) return servedOf(shared.rendered, request.gzip, shared.visitorId);
  const rendering = render(serving, request, asked, visitorIdAt, now);
  if (!under && renderings.size < MAX_RENDERINGS) {
    renderings.set(asked.key, rendering);
    const forget = () => renderings.delete(asked.key);
    rendering.then(forget, forget);
  }
  const result = await rendering;
  return 'rendered' in result ? servedOf(result.rendered, request.gzip, result.rendered.visitorId) : result;
}

/**
 * The rendering under way of `page`, when it serves this request too: kept, of the visitor's arm,
 * and rendered at the tenant's generation of now, read after this request came (a change that
 * committed since has bumped it), so that what a request is served never predates it.
 */
async function sharedRendering(
  serving: Serving,
  page: PageRequest,
  under: Promise<Rendering>,
  visitorIdAt: VisitorIdAt,
): Promise<{ rendered: Rendered; visitorId: string | undefined } | undefined> {
  const rendering = await under.catch(() => undefined);
  if (!rendering || !('rendered' in rendering) || !rendering.rendered.keptAt) return undefined;
  const { row, keptAt } = rendering.rendered;
  const holdout = { audienceId: row.audience_id, holdoutPercent: row.holdout_percent };
  const { arm, visitorId } = visitorArm(serving.signer, holdout, () => visitorIdAt(page));
  if (arm !== row.arm) return undefined;
  const now = await findGenerationAt(serving.database.acrossTenants<ServedTables>(), tenantAt(page));
  const current = now?.tenant_id === keptAt.tenant_id && now.generation === keptAt.generation;
  return current ? { rendered: rendering.rendered, visitorId } : undefined;
}

/** How the generation's read finds the tenant an address names: by hostname, or by slug. */
function tenantAt(page: PageRequest): { hostname: string } | { slug: string } {
  return page.kind === 'domain' ? { hostname: page.hostname } : { slug: page.tenantSlug };
}

/**
 * Renders the page as a request finds it and keeps it, at the generation read, with the tenant the
 * address names, before anything the page is made from: a change that commits meanwhile has bumped
 * the generation past the row's, which then is never served. A page whose address no longer names
 * the tenant of that read is served but not kept, as is one whose Host and path do not name the
 * page's key (a `/p/…` address on a host no tenant holds).
 */
async function render(
  { database, pages, signer, visits }: Serving,
  request: PageAsk,
  asked: { page: PageRequest; key: string },
  visitorIdAt: VisitorIdAt,
  now: number,
): Promise<Rendering> {
  const generation = await findGenerationAt(database.acrossTenants<ServedTables>(), tenantAt(asked.page));
  const answer = await pageAddressOf(database, pages, request.host, request.url);
  if (!('serve' in answer)) return answer;
  const address = answer.serve;
  const view = await resolvePageView(database, address, { signer, visitorId: () => visitorIdAt(address) });
  if (!view) return { notFound: true };
  const origin = originOf(pages, address);
  const images = await resolveImageUrls(view.db, { signer, publicUrl: origin }, imageRefsOf(view));
  const expiresAt = now + visits.tokenValidMs;
  const holdoutPercent = holdoutInEffect(view.audience);
  const token = visits.issueToken(
    {
      tenantId: view.tenant.tenantId,
      pageId: view.page.pageId,
      audienceId: view.audience.audienceId,
      pageLinkId: view.link.pageLinkId,
      arm: view.arm,
      versionId: view.versionId,
      holdoutPercent,
    },
    expiresAt,
  );
  const html = renderPage({ view, images, visit: { token, trackerSrc: visits.trackerSrc, arm: view.arm } });
  const row: ServedRow = {
    address_key: asked.key,
    arm: view.arm,
    tenant_id: view.tenant.tenantId,
    generation: generation?.generation ?? 0,
    audience_id: view.audience.audienceId,
    holdout_percent: holdoutPercent,
    html,
    gzip: gzipSync(html, { level: constants.Z_BEST_COMPRESSION }),
    etag: createHash('sha256').update(html).digest('base64url').slice(0, 32),
    token_expires_at: expiresAt,
    built_at: now,
  };
  const kept = generation?.tenant_id === view.tenant.tenantId && addressKey(address) === asked.key;
  if (kept) await keepServed(database.acrossTenants<ServedTables>(), database.locks, row);
  return { rendered: { row, address, visitorId: view.visitorId, keptAt: kept ? generation : undefined } };
}
