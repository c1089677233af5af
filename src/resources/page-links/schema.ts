import { type Static, Type } from 'typebox';
import { IdParams, Nullable, PagedList, PageQuery, Timestamp } from '../../http/schemas.ts';

const PATH_SHAPE =
  "A path such as /platform/tom-becker: slashes, each followed by lowercase letters, digits, '.', '_', '~' or '-' (a part may not be '.' or '..'); capitals are lowercased";

/** A link's path; its shape in words is the refusal of a path the service cannot make canonical too. */
export const Path = Type.String({
  minLength: 1,
  maxLength: 512,
  // What the service's canonicalPath takes, before lowercasing: "/" or segments, none "." or ".."
  // (spelled without lookahead, which not every validator or generator reads).
  pattern:
    '^(/|(/([A-Za-z0-9_~-][A-Za-z0-9._~-]*|\\.[A-Za-z0-9_~-][A-Za-z0-9._~-]*|\\.\\.[A-Za-z0-9._~-]+))+)$',
  description: `${PATH_SHAPE}. Unique among the live links of its domain (the tenant's shared address when tenantDomainId is null); on a tenant domain it may not start with /v0`,
  examples: ['/platform/tom-becker'],
});

const Target = Type.Object(
  {
    targetType: Type.Literal('audience', {
      description: 'The only target type: an audience that is not archived',
    }),
    audienceId: Type.String(),
  },
  { additionalProperties: false },
);

const TenantDomainId = Nullable(
  Type.String({
    minLength: 1,
    maxLength: 64,
    description:
      "The tenant domain the link is served on (`https://{hostname}{path}`); null for the tenant's shared address on the pages origin (`/p/{slug}{path}`)",
  }),
);

export const PageLink = Type.Object(
  {
    pageLinkId: Type.String(),
    tenantDomainId: Nullable(Type.String()),
    path: Type.String(),
    target: Type.Object({ targetType: Type.String(), audienceId: Type.String() }),
    url: Nullable(Type.String({ format: 'uri' }), {
      description:
        'Where visitors open the link: on the pages origin or its tenant domain. Null once the link is deleted.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: Nullable(Timestamp),
  },
  { title: 'PageLink' },
);
export type PageLink = Static<typeof PageLink>;

export const PageLinkCreate = Type.Object(
  { path: Path, target: Target, tenantDomainId: Type.Optional(TenantDomainId) },
  {
    title: 'PageLinkCreate',
    examples: [
      {
        path: '/spring-launch/northwind',
        target: { targetType: 'audience', audienceId: 'audience_01jdq4b7e2g5j8k1m3n6p9r2s4' },
      },
    ],
    additionalProperties: false,
  },
);
export type PageLinkCreate = Static<typeof PageLinkCreate>;

export const PageLinkUpdate = Type.Object(
  { path: Type.Optional(Path), target: Type.Optional(Target), tenantDomainId: Type.Optional(TenantDomainId) },
  {
    title: 'PageLinkUpdate',
    examples: [{ path: '/spring/northwind-outfitters' }],
    additionalProperties: false,
  },
);
export type PageLinkUpdate = Static<typeof PageLinkUpdate>;

export const PageLinkListQuery = Type.Object({
  ...PageQuery,
  audienceId: Type.Optional(Type.String({ description: 'Only links to this audience' })),
});

export const PageLinkList = PagedList(PageLink, { title: 'PageLinkList' });
export const PageLinkParams = IdParams('page_link_id');
