import { type Static, Type } from 'typebox';
import { PageMetadata, PageMetadataOverride, SAFE_URL } from '../../http/page-metadata.ts';
import { IdParams, IdString, Nullable, PagedList, PageQuery, Timestamp } from '../../http/schemas.ts';

const STATES = ['archived', 'cancelled', 'draft', 'pending', 'processing', 'published', 'queued'] as const;

const versionFields = {
  versionId: Type.String(),
  versionNumber: Type.Number({ description: '0 is the baseline: the page unpersonalized' }),
  audienceId: Type.String(),
  isNewPageAgent: Type.Boolean(),
  supplementaryContext: Type.String({
    description: "The audience's supplementary context when the version was queued",
  }),
  queueDurationMs: Type.Number({ description: 'Processing start minus queuedAt; 0 until processing starts' }),
  createdAt: Timestamp,
  becameDraftAt: Type.Optional(Timestamp),
  queuedAt: Type.Optional(Timestamp),
  publishedAt: Type.Optional(Timestamp),
  cancelledAt: Type.Optional(Timestamp),
  obsoleteAt: Type.Optional(Timestamp),
  archivedAt: Type.Optional(Timestamp),
};

export const AudienceVersion = Type.Object(versionFields, { title: 'AudienceVersion' });
export type AudienceVersion = Static<typeof AudienceVersion>;

/** `data` of the page.version.* events: the version as the API shows it, without its content. */
export const VersionEventData = Type.Object(
  { pageId: Type.String(), audienceId: Type.String(), version: AudienceVersion },
  { title: 'VersionEventData' },
);
export type VersionEventData = Static<typeof VersionEventData>;

export const VersionContent = Type.Object(
  {
    headline: Type.String(),
    subheadline: Type.String(),
    sections: Type.Array(Type.Object({ heading: Type.String(), body: Type.String() })),
    actions: Type.Array(
      Type.Object({
        actionId: Type.String(),
        buttonTitle: Type.String(),
        purpose: Type.String(),
        url: Type.String(SAFE_URL),
      }),
    ),
    metadata: PageMetadata,
  },
  { title: 'AudienceVersionContent' },
);
export type VersionContent = Static<typeof VersionContent>;

export const AudienceVersionWithContent = Type.Object(
  {
    ...versionFields,
    state: Type.Enum(['queued', 'processing', 'pending', 'draft', 'published', 'cancelled']),
    content: Nullable(VersionContent, {
      description: 'The generated content; null until the version is generated',
    }),
    generatedBy: Nullable(
      Type.String({
        description:
          'The personalizer that wrote the content: built-in, or the configured model; null for the baseline and before generation',
      }),
    ),
    generationNote: Nullable(
      Type.String({
        description:
          "Why generation went as it did: why the content is the built-in personalizer's although a model is configured; why a pending version waits for another attempt; why a cancelled one could not be generated. Null otherwise",
      }),
    ),
    editedAt: Nullable(Timestamp, {
      description: 'When the content was last edited (PATCH, while a draft); null while it is as generated',
    }),
  },
  { title: 'AudienceVersionWithContent' },
);
export type AudienceVersionWithContent = Static<typeof AudienceVersionWithContent>;

const HoldoutPercent = Type.Integer({
  minimum: 0,
  maximum: 50,
  description:
    'The share of visitors, in percent, served version 0 (the baseline) instead of the published version, to measure lift; sticky per visitor (docs/analytics.md)',
});

export const Audience = Type.Object(
  {
    audienceId: Type.String(),
    pageId: Type.String(),
    status: Type.Enum(STATES, { description: "The latest version's state, or archived" }),
    computedName: Type.String({
      description:
        'The person\'s name, plus " at " and the account\'s name or domain when known; for an account\'s audience the account\'s name or domain; else "Audience N"',
    }),
    customName: Nullable(Type.String()),
    effectiveName: Type.String({ description: 'customName when set, else computedName' }),
    isNewPageAgent: Type.Boolean(),
    personId: Nullable(Type.String()),
    accountId: Nullable(
      Type.String({ description: 'The account an audience for a whole company is for; null otherwise' }),
    ),
    personRouteKey: Nullable(Type.String({ description: "The person's slug" })),
    actionFormIdOverride: Nullable(Type.String()),
    actionFormInstructionsOverride: Nullable(Type.String()),
    actionUrlOverride: Nullable(Type.String()),
    supplementaryContext: Nullable(Type.String()),
    holdoutPercent: HoldoutPercent,
    latestVersion: AudienceVersion,
    publishedVersion: AudienceVersion,
    effectiveMetadata: Type.Optional(PageMetadata),
    metadataOverride: Type.Optional(PageMetadata),
    createdAt: Timestamp,
    archivedAt: Nullable(Timestamp),
  },
  { title: 'Audience' },
);
export type Audience = Static<typeof Audience>;

const editable = {
  customName: Nullable(Type.String({ minLength: 1, maxLength: 255 })),
  supplementaryContext: Nullable(Type.String({ maxLength: 65536 })),
  isNewPageAgent: Type.Boolean(),
  actionFormIdOverride: Nullable(Type.String({ minLength: 1, maxLength: 255 })),
  actionFormInstructionsOverride: Nullable(Type.String({ maxLength: 4096 })),
  actionUrlOverride: Nullable(Type.String({ ...SAFE_URL, minLength: 1 })),
  metadataOverride: Nullable(PageMetadataOverride),
  holdoutPercent: HoldoutPercent,
};

export const AudienceCreate = Type.Object(
  {
    customName: Type.Optional(editable.customName),
    personId: Type.Optional(
      Nullable(
        Type.String({ description: 'A person of your tenant (400 otherwise): the audience is that person' }),
      ),
    ),
    accountId: Type.Optional(
      Nullable(
        Type.String({
          description:
            'An account of your tenant (400 otherwise): the audience is everyone at that company. Not together with personId, whose account is known',
        }),
      ),
    ),
    supplementaryContext: Type.Optional(editable.supplementaryContext),
    isNewPageAgent: Type.Optional(Type.Boolean({ default: false })),
    actionFormIdOverride: Type.Optional(editable.actionFormIdOverride),
    actionFormInstructionsOverride: Type.Optional(editable.actionFormInstructionsOverride),
    actionUrlOverride: Type.Optional(editable.actionUrlOverride),
    metadataOverride: Type.Optional(editable.metadataOverride),
    autoPublish: Type.Optional(
      Type.Boolean({ default: false, description: 'Publish each generated version as soon as it is ready' }),
    ),
    holdoutPercent: Type.Optional({ ...editable.holdoutPercent, default: 0 }),
  },
  {
    title: 'AudienceCreate',
    examples: [
      {
        customName: 'Maya Chen at Northwind',
        personId: 'person_01jdq3m9x4t6v8w2yz5k7n1p3r',
        supplementaryContext:
          'Maya leads e-commerce at Northwind Outfitters. At NRF she asked how pages stay on brand and whether they work with Shopify Plus.',
        autoPublish: false,
        holdoutPercent: 10,
      },
    ],
    additionalProperties: false,
  },
);
export type AudienceCreate = Static<typeof AudienceCreate>;

export const AudienceUpdate = Type.Object(
  {
    customName: Type.Optional(editable.customName),
    supplementaryContext: Type.Optional(editable.supplementaryContext),
    isNewPageAgent: Type.Optional(editable.isNewPageAgent),
    actionFormIdOverride: Type.Optional(editable.actionFormIdOverride),
    actionFormInstructionsOverride: Type.Optional(editable.actionFormInstructionsOverride),
    actionUrlOverride: Type.Optional(editable.actionUrlOverride),
    metadataOverride: Type.Optional(editable.metadataOverride),
    autoPublish: Type.Optional(Type.Boolean()),
    holdoutPercent: Type.Optional(editable.holdoutPercent),
  },
  {
    title: 'AudienceUpdate',
    examples: [
      {
        supplementaryContext:
          'Maya leads e-commerce at Northwind Outfitters and owns the spring collection launch; lead with the Shopify Plus integration.',
        autoPublish: true,
      },
    ],
    additionalProperties: false,
  },
);
export type AudienceUpdate = Static<typeof AudienceUpdate>;

export const AudienceList = PagedList(Audience, { title: 'AudienceList' });
export const AudienceVersionList = PagedList(AudienceVersionWithContent, { title: 'AudienceVersionList' });
export const AudienceListQuery = Type.Object({ ...PageQuery });
export const AudienceIndexQuery = Type.Object({
  ...PageQuery,
  personId: Type.Optional(IdString('person', 'Only the audiences made for this person')),
  accountId: Type.Optional(
    IdString(
      'account',
      'Only the audiences made for this account as a whole (not those for one of its persons)',
    ),
  ),
});
export const PageAudienceParams = IdParams('page_id');
export const AudienceParams = IdParams('page_id', 'audience_id');
export const AudienceVersionParams = IdParams('page_id', 'audience_id', 'version_id');
