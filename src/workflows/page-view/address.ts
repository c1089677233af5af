import type { Database } from '../../db/connection.ts';
import { heldDomain } from '../../resources/tenant-domains/service.ts';
import { hostnameOf } from '../../shared/hostnames.ts';
import type { PagesOrigin } from '../../shared/pages-origin.ts';

/**
 * Which page a request to the pages origin asks for, by its Host and its path (decisions §4, §6):
 * - on a tenant domain (a Host some tenant holds), the path is the link's path on that domain;
 * - elsewhere, `/p/{slug}{path}` is the link at `path` on the tenant's shared address, served on
 *   the tenant's own origin when each tenant has one (a request on another tenant's origin is sent
 *   to the right one, so that no tenant's page ever runs on another tenant's origin).
 */
export type PageAddress =
  | { kind: 'shared'; tenantSlug: string; path: string }
  | { kind: 'domain'; tenantId: string; tenantDomainId: string; hostname: string; path: string };

/** What a request names before anything is looked up: a page address whose domain is not yet known. */
export type PageRequest =
  | { kind: 'shared'; tenantSlug: string; path: string }
  | { kind: 'domain'; hostname: string; path: string };

/**
 * What a request asks for, from its Host and path alone: the page it names and the key that page is
 * kept under (served.ts), or the answer that needs no lookup.
 */
export type RequestAnswer = { page: PageRequest; key: string } | { redirect: string } | { notFound: true };

export type AddressAnswer =
  | { serve: PageAddress }
  /** The page lives on another origin: the same path there. */
  | { redirect: string }
  | { notFound: true };

/** `/p/{slug}{path}`; the slug as tenant slugs are made, so that it can only ever name a host label. */
const SHARED_PATH = /^\/p\/([a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)(\/.*)?$/;

function pathOf(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  // A trailing slash is forgiven: link paths never end with one (the root "/" aside). Checked
  // first: a page view's path seldom has one, and this runs on every view.
  if (!path.endsWith('/') || path === '/') return path;
  return path.replace(/\/+$/, '') || '/';
}

/** The key a page is kept under: its host kind, its tenant's slug or its hostname, and its path (any case). */
export function addressKey(page: PageRequest): string {
  const path = page.path.toLowerCase();
  return page.kind === 'shared' ? `s ${page.tenantSlug}${path}` : `d ${page.hostname}${path}`;
}

/** `/p/{slug}{path}` on one of the pages origin's own hosts. */
function sharedAddress(pages: PagesOrigin, host: string, url: string, path: string): AddressAnswer {
  const match = SHARED_PATH.exec(path);
  if (!match) return { notFound: true };
  const tenantSlug = match[1] ?? '';
  if (pages.perTenant && !pages.isHostOf(tenantSlug, host)) {
    return { redirect: `${pages.originOf(tenantSlug)}${url}` };
  }
  return { serve: { kind: 'shared', tenantSlug, path: match[2] ?? '/' } };
}

export async function pageAddressOf(
  database: Database,
  pages: PagesOrigin,
  host: string,
  url: string,
): Promise<AddressAnswer> {
  const path = pathOf(url);
  if (!pages.isOwnHost(host)) {
    const hostname = hostnameOf(host);
    const held = await heldDomain(database.acrossTenants(), hostname);
    if (held) return { serve: { kind: 'domain', ...held, hostname, path } };
  }
  return sharedAddress(pages, host, url, path);
}

/**
 * The page a request names, as far as its Host and path tell: on a host other than the origin's
 * own, the tenant domain of that name (pageAddressOf finds whether one holds it).
 */
export function requestedPage(pages: PagesOrigin, host: string, url: string): RequestAnswer {
  const path = pathOf(url);
  if (!pages.isOwnHost(host)) return askedFor({ kind: 'domain', hostname: hostnameOf(host), path });
  const answer = sharedAddress(pages, host, url, path);
  return 'serve' in answer ? askedFor(answer.serve) : answer;
}

/** A page asked for, with its key. At the top level: a function made per view costs one per view. */
function askedFor(page: PageRequest): { page: PageRequest; key: string } {
  return { page, key: addressKey(page) };
}

/** Where a `/p/…` address asked of the API origin lives on the pages origin; undefined when it names no tenant. */
export function onPagesOrigin(pages: PagesOrigin, url: string): string | undefined {
  const tenantSlug = SHARED_PATH.exec(pathOf(url))?.[1];
  return tenantSlug === undefined ? undefined : `${pages.originOf(tenantSlug)}${url}`;
}

/** The origin a page address is served on, for the absolute links a page carries (its images). */
export function originOf(pages: PagesOrigin, address: PageRequest): string {
  return address.kind === 'domain' ? `https://${address.hostname}` : pages.originOf(address.tenantSlug);
}
