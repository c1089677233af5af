import type { Database } from '../../db/connection.ts';
import { heldDomain } from '../../resources/tenant-domains/service.ts';
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

export type AddressAnswer =
  | { serve: PageAddress }
  /** The page lives on another origin: the same path there. */
  | { redirect: string }
  | { notFound: true };

/** `/p/{slug}{path}`; the slug as tenant slugs are made, so that it can only ever name a host label. */
const SHARED_PATH = /^\/p\/([a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)(\/.*)?$/;

function pathOf(url: string): string {
  const path = url.split('?')[0] ?? '/';
  // A trailing slash is forgiven: link paths never end with one (the root "/" aside).
  return path === '/' ? path : path.replace(/\/+$/, '') || '/';
}

function hostnameOf(host: string): string {
  return host.replace(/:\d+$/, '').replace(/\.$/, '').toLowerCase();
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
  const match = SHARED_PATH.exec(path);
  if (!match) return { notFound: true };
  const tenantSlug = match[1] ?? '';
  if (pages.perTenant && !pages.isHostOf(tenantSlug, host)) {
    return { redirect: `${pages.originOf(tenantSlug)}${url}` };
  }
  return { serve: { kind: 'shared', tenantSlug, path: match[2] ?? '/' } };
}

/** Where a `/p/…` address asked of the API origin lives on the pages origin; undefined when it names no tenant. */
export function onPagesOrigin(pages: PagesOrigin, url: string): string | undefined {
  const tenantSlug = SHARED_PATH.exec(pathOf(url))?.[1];
  return tenantSlug === undefined ? undefined : `${pages.originOf(tenantSlug)}${url}`;
}

/** The origin a page address is served on, for the absolute links a page carries (its images). */
export function originOf(pages: PagesOrigin, address: PageAddress): string {
  return address.kind === 'domain' ? `https://${address.hostname}` : pages.originOf(address.tenantSlug);
}
