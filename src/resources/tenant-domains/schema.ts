import { type Static, Type } from 'typebox';
import { IdParams, PagedList, PageQuery, Timestamp } from '../../http/schemas.ts';

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** The last label starts with a letter, as every top-level domain does: so no IPv4 address. */
const TOP_LABEL = '[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** Two labels or more, no port, no trailing dot. */
const HOSTNAME_PATTERN = `^(?:${LABEL}\\.)+${TOP_LABEL}$`;

const Hostname = Type.String({
  minLength: 3,
  maxLength: 253,
  pattern: HOSTNAME_PATTERN,
  description:
    "A hostname such as go.acme.com: two labels or more of lowercase letters, digits and '-', separated by dots, the last starting with a letter; no IP address, port or trailing dot. One tenant per hostname across the service; Tailor's own hosts are refused.",
  examples: ['go.acme.com'],
});

export const TenantDomain = Type.Object(
  {
    tenantDomainId: Type.String({ pattern: '^domain_[a-z0-9]{26}$' }),
    hostname: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'TenantDomain' },
);
export type TenantDomain = Static<typeof TenantDomain>;

export const TenantDomainCreate = Type.Object(
  { hostname: Hostname },
  {
    title: 'TenantDomainCreate',
    examples: [{ hostname: 'go.northwind.example' }],
    additionalProperties: false,
  },
);
export type TenantDomainCreate = Static<typeof TenantDomainCreate>;

export const TenantDomainList = PagedList(TenantDomain, { title: 'TenantDomainList' });
export const TenantDomainListQuery = Type.Object(PageQuery);
export const TenantDomainParams = IdParams('tenant_domain_id');

const CheckedHostname = Type.String({
  maxLength: 253,
  description: 'The hostname to check, as a TLS proxy sends it; case, a port and a trailing dot are ignored',
});
export const HostnameParams = Type.Object({ hostname: CheckedHostname });
export const HostnameQuery = Type.Object({ domain: CheckedHostname });
export const HeldHostname = Type.Object(
  { hostname: Type.String() },
  { title: 'HeldHostname', description: 'A tenant holds this hostname: its pages are served there' },
);
