/**
 * Where tenants' pages are served (decisions §6): the pages origin, a listener of its own that never
 * shares an origin with the console. Its address is a template: `http://127.0.0.1:8081` puts every
 * tenant's pages on one shared origin; `https://{tenant}.pages.example.com` gives each tenant an
 * origin of its own, named by its slug. Either way a tenant's pages live under `/p/{slug}`.
 */
const TENANT_PLACEHOLDER = '{tenant}';

/** What a template may be, as a problem to report; undefined when it is fine. */
export function templateProblem(template: string): string | undefined {
  const placeholders = template.split(TENANT_PLACEHOLDER).length - 1;
  if (placeholders > 1) return `may hold ${TENANT_PLACEHOLDER} once`;
  let url: URL;
  try {
    url = new URL(template.replace(TENANT_PLACEHOLDER, 'tenant'));
  } catch {
    return `must be a URL (got "${template}")`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `must be a http: or https: URL (got "${url.protocol}")`;
  }
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    return 'must be an origin only: scheme, host and port, with no path, query or credentials';
  }
  if (placeholders === 1 && !hostOf(template).split('.')[0]?.includes(TENANT_PLACEHOLDER)) {
    return `may hold ${TENANT_PLACEHOLDER} only in the first label of its host`;
  }
  return undefined;
}

/** The host (with its port, when it has one) of an origin template, `{tenant}` left in place. */
function hostOf(template: string): string {
  return template
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/\/+$/, '')
    .toLowerCase();
}

export class PagesOrigin {
  /** Whether each tenant has an origin of its own (the template names `{tenant}`). */
  readonly perTenant: boolean;
  private readonly template: string;
  private readonly hostPattern: RegExp | undefined;
  /** The one host of a shared origin (perTenant false), worked out once: asked of every page view. */
  private readonly sharedHost: string;

  /** `template` must pass templateProblem (config.ts checks it at start). */
  constructor(template: string) {
    this.template = template.replace(/\/+$/, '');
    this.perTenant = this.template.includes(TENANT_PLACEHOLDER);
    const [before, after] = hostOf(this.template).split(TENANT_PLACEHOLDER).map(escapeRegExp);
    this.hostPattern = this.perTenant ? new RegExp(`^${before}([a-z0-9-]+)${after}$`) : undefined;
    this.sharedHost = hostOf(this.template);
  }

  /** The origin a tenant's pages are served on: scheme, host and port. */
  originOf(slug: string): string {
    return this.template.replace(TENANT_PLACEHOLDER, slug);
  }

  /** Where a tenant's pages start: a link's path follows it. */
  baseOf(slug: string): string {
    return `${this.originOf(slug)}/p/${slug}`;
  }

  /** Whether `host` (a Host header, with its port when it has one) is where `slug`'s pages belong. */
  isHostOf(slug: string, host: string): boolean {
    return host.toLowerCase() === hostOf(this.originOf(slug));
  }

  /** Whether `host` is one of this origin's own hosts (the shared one, or any tenant's). */
  isOwnHost(host: string): boolean {
    const lower = host.toLowerCase();
    return this.hostPattern ? this.hostPattern.test(lower) : lower === this.sharedHost;
  }

  /**
   * Whether a tenant domain must not take `hostname` (no port): this origin's own hosts and the
   * names under them, from which a page could set cookies for them.
   */
  reservesHostname(hostname: string): boolean {
    const host = hostOf(this.template).replace(/:\d+$/, '');
    return isAtOrUnder(hostname, this.perTenant ? host.slice(host.indexOf('.') + 1) : host);
  }
}

/** Whether `hostname` is `host` or a name under it. */
export function isAtOrUnder(hostname: string, host: string): boolean {
  return hostname === host || hostname.endsWith(`.${host}`);
}

function escapeRegExp(text = ''): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
