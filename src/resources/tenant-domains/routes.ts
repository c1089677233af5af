import type { Database } from '../../db/connection.ts';
import { paginate } from '../../http/pagination.ts';
import { Problem } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import {
  HeldHostname,
  HostnameParams,
  HostnameQuery,
  TenantDomain,
  TenantDomainCreate,
  TenantDomainList,
  TenantDomainListQuery,
  TenantDomainParams,
} from './schema.ts';
import {
  checkHostname,
  createTenantDomain,
  deleteTenantDomain,
  getTenantDomain,
  type LinksOnDomain,
  listDomains,
  type ReservedHostname,
} from './service.ts';

const tags = ['Tenant domains'];

export interface TenantDomainNeeds {
  linksOn: LinksOnDomain;
  reserved: ReservedHostname;
}

/** The tenant domain endpoints: a tenant's own hosts for its pages. */
export async function tenantDomainRoutes(api: Api, { linksOn, reserved }: TenantDomainNeeds): Promise<void> {
  api.post(
    '/v0/tenant_domains',
    {
      schema: {
        tags,
        operationId: 'createTenantDomain',
        summary: 'Add a tenant domain',
        description:
          "A host of the tenant's own, such as go.acme.com, on which its page links can be served (point the name at the pages origin; docs/tenant-domains.md). 409 `conflict` when any tenant already holds the hostname.",
        body: TenantDomainCreate,
        response: { 201: TenantDomain },
      },
    },
    async (request, reply) => {
      const domain = await createTenantDomain(request.tenantDb, request.body, reserved);
      return reply.code(201).header('Location', `/v0/tenant_domains/${domain.tenantDomainId}`).send(domain);
    },
  );

  api.get(
    '/v0/tenant_domains',
    {
      schema: {
        tags,
        operationId: 'listTenantDomains',
        summary: 'List tenant domains',
        description: "The tenant's domains, newest first.",
        querystring: TenantDomainListQuery,
        response: { 200: TenantDomainList },
      },
    },
    (request) => paginate(request, {}, (page) => listDomains(request.tenantDb, page)),
  );

  api.get(
    '/v0/tenant_domains/:tenant_domain_id',
    {
      schema: {
        tags,
        operationId: 'getTenantDomain',
        summary: 'Get a tenant domain',
        description: 'One domain of the tenant.',
        params: TenantDomainParams,
        response: { 200: TenantDomain },
      },
    },
    (request) => getTenantDomain(request.tenantDb, request.params.tenant_domain_id),
  );

  api.delete(
    '/v0/tenant_domains/:tenant_domain_id',
    {
      schema: {
        tags,
        operationId: 'deleteTenantDomain',
        summary: 'Delete a tenant domain',
        description:
          'Gives the hostname up, answering the domain as it was. 409 `invalid_state` while a live page link is served on it.',
        params: TenantDomainParams,
        response: { 200: TenantDomain },
      },
    },
    (request) => deleteTenantDomain(request.tenantDb, request.params.tenant_domain_id, linksOn),
  );
}

const checkDescription =
  "Needs no API key. 200 when a tenant holds the hostname, 404 otherwise: a TLS proxy in front of the pages origin (Caddy's on-demand TLS `ask`) asks it before getting a certificate, so that certificates are issued only for held names.";

/** The public check of a hostname, for a TLS proxy: no key, and nothing told but whether it is held. */
export async function tenantDomainCheckRoutes(app: Api, { database }: { database: Database }): Promise<void> {
  const check = (asked: string) => checkHostname(database.acrossTenants(), asked);
  app.get(
    '/v0/public/domains/:hostname',
    {
      schema: {
        tags,
        operationId: 'checkTenantDomain',
        summary: 'Check whether a hostname is held',
        description: checkDescription,
        security: [],
        params: HostnameParams,
        response: { 200: HeldHostname, 404: Problem, '4XX': Problem },
      },
    },
    (request) => check(request.params.hostname),
  );
  app.get(
    '/v0/public/domains',
    {
      schema: {
        tags,
        operationId: 'checkTenantDomainByQuery',
        summary: 'Check whether a hostname is held (query form)',
        description: `${checkDescription} The same check with the hostname in \`?domain=\`, the form Caddy's \`ask\` sends.`,
        security: [],
        querystring: HostnameQuery,
        response: { 200: HeldHostname, 404: Problem, '4XX': Problem },
      },
    },
    (request) => check(request.query.domain),
  );
}
