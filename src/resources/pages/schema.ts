import { type Static, Type } from 'typebox';
import { PageMetadata, PageMetadataInput, SafeUrl } from '../../http/page-metadata.ts';
import {
  Count,
  IdParams,
  NullableTimestamp,
  optionalAll,
  PagedList,
  PageQuery,
  SearchQuery,
  Timestamp,
} from '../../http/schemas.ts';

const ShortId = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,64}$',
  description: "An id such as book-a-demo: 1 to 64 letters, digits, '_' or '-'",
  examples: ['book-a-demo'],
});
const Text = (maxLength: number) => Type.String({ maxLength });

export const PAGE_TYPES = ['inbound', 'outbound', 'call_followup', 'sales_deck', 'custom'] as const;
export const PageType = Type.Enum(PAGE_TYPES, { title: 'PageType' });
export type PageType = Static<typeof PageType>;
export const PageStatus = Type.Enum(['archived', 'draft', 'published'], { title: 'PageStatus' });
export type PageStatus = Static<typeof PageStatus>;

export const Action = Type.Object(
  {
    actionId: Type.String(),
    actionIndex: Type.Number(),
    purpose: Type.String(),
    buttonTitle: Type.String(),
    actionType: Type.String(),
    url: Type.String(),
  },
  { title: 'Action' },
);
export type Action = Static<typeof Action>;

const ActionInput = Type.Object(
  {
    actionId: Type.Optional(ShortId),
    purpose: Type.Optional(Text(2048)),
    buttonTitle: Type.String({ minLength: 1, maxLength: 255 }),
    actionType: Type.String({ minLength: 1, maxLength: 64 }),
    url: Type.Optional(SafeUrl),
  },
  { additionalProperties: false },
);

const Image = Type.Object({
  altText: Type.String(),
  url: Type.String(),
  fileId: Type.String(),
  assetId: Type.String(),
});
export const ActionCardWidget = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    logos: Type.Array(Type.Object({ image: Image })),
  },
  { title: 'ActionCardWidget' },
);
export type ActionCardWidget = Static<typeof ActionCardWidget>;

const ImageInput = Type.Object(
  {
    altText: Type.Optional(Text(255)),
    url: Type.Optional(SafeUrl),
    fileId: Type.Optional(Text(64)),
    assetId: Type.Optional(Text(64)),
  },
  { additionalProperties: false, description: 'Give a url, an image fileId or an assetId of your tenant' },
);
const ActionCardWidgetInput = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 64, description: 'e.g. logos, testimonial, cta' }),
    title: Type.Optional(Text(255)),
    logos: Type.Optional(
      Type.Array(Type.Object({ image: ImageInput }, { additionalProperties: false }), { maxItems: 50 }),
    ),
  },
  { additionalProperties: false },
);

export const Script = Type.Object(
  {
    content: Type.String(),
    enabled: Type.Boolean(),
    name: Type.String(),
    description: Type.String(),
  },
  { title: 'Script' },
);
export type Script = Static<typeof Script>;

const ScriptInput = Type.Object(
  {
    content: Type.String({ maxLength: 65536, description: 'HTML added to the public page when enabled' }),
    enabled: Type.Optional(Type.Boolean()),
    name: Type.Optional(Text(255)),
    description: Type.Optional(Text(1024)),
  },
  { additionalProperties: false },
);

export const FooterLinkGroup = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    links: Type.Array(Type.Object({ id: Type.String(), text: Type.String(), url: Type.String() })),
  },
  { title: 'FooterLinkGroup' },
);
export type FooterLinkGroup = Static<typeof FooterLinkGroup>;

const FooterLinkGroupInput = Type.Object(
  {
    id: Type.Optional(ShortId),
    title: Type.Optional(Text(255)),
    links: Type.Optional(
      Type.Array(
        Type.Object(
          { id: Type.Optional(ShortId), text: Type.String({ minLength: 1, maxLength: 255 }), url: SafeUrl },
          { additionalProperties: false },
        ),
        { maxItems: 50 },
      ),
    ),
  },
  { additionalProperties: false },
);

export const Page = Type.Object(
  {
    pageId: Type.String(),
    name: Type.String(),
    title: Type.String({ description: 'metadata.title when given, else the name' }),
    pageContext: Type.String(),
    pageType: PageType,
    status: PageStatus,
    brandId: Type.String(),
    actions: Type.Array(Action),
    actionCardWidgets: Type.Array(ActionCardWidget),
    scripts: Type.Array(Script),
    footerLinks: Type.Optional(Type.Array(FooterLinkGroup)),
    headerActionId: Type.Optional(Type.String()),
    metadata: Type.Optional(PageMetadata),
    audiencesCount: Count,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    archivedAt: NullableTimestamp,
    deletedAt: NullableTimestamp,
  },
  { title: 'Page' },
);
export type Page = Static<typeof Page>;

const pageInputFields = {
  actions: Type.Array(ActionInput, { maxItems: 50 }),
  actionCardWidgets: Type.Array(ActionCardWidgetInput, { maxItems: 50 }),
  brandId: Type.String({ maxLength: 255 }),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  pageContext: Type.String({ minLength: 1, maxLength: 65536 }),
  pageType: PageType,
  scripts: Type.Array(ScriptInput, { maxItems: 20 }),
  footerLinks: Type.Array(FooterLinkGroupInput, { maxItems: 20 }),
  headerActionId: Type.String({ minLength: 1, maxLength: 64, description: 'Must name one of the actions' }),
  metadata: PageMetadataInput,
};

export const PageCreate = Type.Object(
  {
    actions: pageInputFields.actions,
    actionCardWidgets: pageInputFields.actionCardWidgets,
    brandId: pageInputFields.brandId,
    name: pageInputFields.name,
    pageContext: pageInputFields.pageContext,
    pageType: Type.Optional(Type.Enum(PAGE_TYPES, { default: 'inbound' })),
    scripts: pageInputFields.scripts,
    footerLinks: Type.Optional(pageInputFields.footerLinks),
    headerActionId: Type.Optional(pageInputFields.headerActionId),
    metadata: Type.Optional(pageInputFields.metadata),
  },
  {
    title: 'PageCreate',
    examples: [
      {
        name: 'Spring launch: retail',
        pageContext:
          'Tailor helps mid-size retailers turn first visits into booked demos: a landing page personalized for each account, measured audience by audience.',
        pageType: 'outbound',
        brandId: 'acme',
        actions: [
          {
            actionId: 'book-demo',
            buttonTitle: 'Book a demo',
            actionType: 'link',
            url: 'https://acme.example/demo',
            purpose: 'For visitors ready to see the product',
          },
          {
            actionId: 'talk-to-sales',
            buttonTitle: 'Talk to sales',
            actionType: 'form',
            purpose: 'For visitors with questions about pricing or rollout',
          },
        ],
        headerActionId: 'book-demo',
        actionCardWidgets: [
          {
            type: 'logos',
            title: 'Trusted by retail teams',
            logos: [
              { image: { url: 'https://acme.example/logos/northwind.png', altText: 'Northwind Outfitters' } },
              { image: { url: 'https://acme.example/logos/contoso.png', altText: 'Contoso Home' } },
            ],
          },
        ],
        scripts: [],
        footerLinks: [
          {
            id: 'company',
            title: 'Company',
            links: [
              { text: 'About', url: 'https://acme.example/about' },
              { text: 'Privacy', url: 'https://acme.example/privacy' },
            ],
          },
        ],
        metadata: {
          title: 'Personalized landing pages for retail',
          description: 'One page per account, written for the people you are selling to.',
          keywords: ['retail', 'personalization', 'landing pages'],
        },
      },
    ],
    additionalProperties: false,
  },
);
export type PageCreate = Static<typeof PageCreate>;

export const PageUpdate = Type.Object(
  {
    ...optionalAll({
      actions: pageInputFields.actions,
      actionCardWidgets: pageInputFields.actionCardWidgets,
      brandId: pageInputFields.brandId,
      name: pageInputFields.name,
      pageContext: pageInputFields.pageContext,
      pageType: pageInputFields.pageType,
      scripts: pageInputFields.scripts,
    }),
    footerLinks: Type.Optional(Type.Union([pageInputFields.footerLinks, Type.Null()])),
    headerActionId: Type.Optional(Type.Union([pageInputFields.headerActionId, Type.Null()])),
    metadata: Type.Optional(Type.Union([pageInputFields.metadata, Type.Null()])),
  },
  {
    title: 'PageUpdate',
    examples: [
      {
        name: 'Spring launch: retail (EMEA)',
        metadata: { title: 'Personalized landing pages for European retail', robots: ['index', 'follow'] },
      },
    ],
    additionalProperties: false,
  },
);
export type PageUpdate = Static<typeof PageUpdate>;

export const PageListQuery = Type.Object({
  ...PageQuery,
  query: SearchQuery,
  status: Type.Optional({ ...PageStatus, description: 'Only the pages in this status' }),
});

export const PageSearchQuery = Type.Object({
  limit: PageQuery.limit,
  query: SearchQuery,
});

export const PageSearchItem = Type.Object(
  {
    audiencesCount: Count,
    name: Type.String(),
    pageId: Type.String(),
  },
  { title: 'PageSearchItem' },
);
export type PageSearchItem = Static<typeof PageSearchItem>;

export const PageList = PagedList(Page, { title: 'PageList' });
export const PageSearchList = PagedList(PageSearchItem, { title: 'PageSearchList', nullableTotal: true });
export const PageParams = IdParams('page_id');
