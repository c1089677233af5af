import { type Static, Type } from 'typebox';

/** The caller's tenant and key: what a client needs to build public page URLs and to check its key. */
export const CurrentTenant = Type.Object(
  {
    tenantId: Type.String({ pattern: '^tenant_[a-z0-9]{26}$' }),
    name: Type.String(),
    slug: Type.String({ description: 'Public pages are served at /p/{slug}{path} on the pages origin' }),
    pagesUrl: Type.String({
      format: 'uri',
      description:
        "Where the tenant's pages start on the pages origin: a page link's path follows it (links on a tenant domain are served there instead). Each link's own `url` says where it is served.",
    }),
    key: Type.Object(
      {
        keyId: Type.String({ pattern: '^key_[a-z0-9]{26}$' }),
        readOnly: Type.Boolean({ description: 'A read-only key may only make GET requests' }),
      },
      { title: 'CurrentKey' },
    ),
  },
  { title: 'CurrentTenant' },
);
export type CurrentTenant = Static<typeof CurrentTenant>;
