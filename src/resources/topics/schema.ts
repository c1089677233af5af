import { type Static, Type } from 'typebox';
import { IdParams, MAX_SAFE, PagedList, PageQuery, SearchQuery, Timestamp } from '../../http/schemas.ts';

export const ENTRIES_PER_TOPIC = 100;

const Title = Type.String({ minLength: 1, maxLength: 255 });
const sortOrderRange = {
  minimum: 0,
  maximum: MAX_SAFE,
  description: 'Lower comes first; equal values put the newest first',
};
const SortOrder = Type.Integer(sortOrderRange);
const ContentType = Type.Union([Type.Literal('text'), Type.Literal('markdown')], {
  description:
    'How the writer meant the text (stored as sent). Generation reads either as the safe markdown subset: paragraphs, lists, bold, italic, links',
});
const ContentText = Type.String({ minLength: 1, maxLength: 10000 });
const BrandIds = Type.Array(
  Type.String({
    pattern: '^[A-Za-z0-9._-]{1,64}$',
    description:
      "A brand id such as acme-retail: 1 to 64 letters, digits, '.', '_' or '-', as pages name their brand",
    examples: ['acme-retail'],
  }),
  {
    maxItems: 100,
    uniqueItems: true,
    description:
      'The brands whose pages may draw on the topic; [] (the default) means every brand. Generation never draws on a topic of another brand',
  },
);

export const TopicEntry = Type.Object(
  {
    topicEntryId: Type.String(),
    topicId: Type.String(),
    sortOrder: Type.Number({ description: 'An integer from 0 to 9007199254740991' }),
    content: Type.Object({ type: ContentType, content: Type.String() }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'TopicEntry' },
);
export type TopicEntry = Static<typeof TopicEntry>;

export const Topic = Type.Object(
  {
    topicId: Type.String(),
    title: Type.String(),
    purpose: Type.String(),
    sortOrder: Type.Number({ description: 'An integer from 0 to 9007199254740991' }),
    isDefault: Type.Boolean({ description: "The tenant's default topic; at most one topic is the default" }),
    brandIds: BrandIds,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    entries: Type.Array(TopicEntry, {
      maxItems: ENTRIES_PER_TOPIC,
      description: `Every entry of the topic (at most ${ENTRIES_PER_TOPIC}), by sortOrder, then newest first`,
    }),
  },
  { title: 'Topic' },
);
export type Topic = Static<typeof Topic>;

const Purpose = Type.String({
  maxLength: 2000,
  description: 'What the topic is about and when the personalizer should draw on it',
});
const IsDefault = Type.Boolean({
  description: 'true makes this the default topic; the former default topic stops being it',
});

export const TopicCreate = Type.Object(
  {
    title: Title,
    purpose: Type.Optional({ ...Purpose, default: '' }),
    sortOrder: Type.Optional(Type.Integer({ ...sortOrderRange, default: 0 })),
    isDefault: Type.Optional({ ...IsDefault, default: false }),
    brandIds: Type.Optional(BrandIds),
  },
  {
    title: 'TopicCreate',
    examples: [
      {
        title: 'Customer stories',
        purpose: 'Results retailers got with Acme; draw on them when the audience is a retailer.',
        sortOrder: 10,
        isDefault: false,
        brandIds: ['acme'],
      },
    ],
    additionalProperties: false,
  },
);
export type TopicCreate = Static<typeof TopicCreate>;

export const TopicUpdate = Type.Object(
  {
    title: Type.Optional(Title),
    purpose: Type.Optional(Purpose),
    sortOrder: Type.Optional(SortOrder),
    isDefault: Type.Optional(IsDefault),
    brandIds: Type.Optional(BrandIds),
  },
  {
    title: 'TopicUpdate',
    examples: [
      { purpose: 'Results retailers and DTC brands got with Acme; draw on them for any commerce audience.' },
    ],
    additionalProperties: false,
  },
);
export type TopicUpdate = Static<typeof TopicUpdate>;

const EntryContent = (description: string) =>
  Type.Object({ type: ContentType, content: ContentText }, { additionalProperties: false, description });

export const TopicEntryCreate = Type.Object(
  {
    content: EntryContent('The text of the entry and its format'),
    sortOrder: Type.Optional(Type.Integer({ ...sortOrderRange, default: 0 })),
  },
  {
    title: 'TopicEntryCreate',
    examples: [
      {
        content: {
          type: 'markdown',
          content:
            '**Northwind Outfitters** raised booked demos by 38% in six weeks with a page per target account.',
        },
        sortOrder: 0,
      },
    ],
    additionalProperties: false,
  },
);
export type TopicEntryCreate = Static<typeof TopicEntryCreate>;

export const TopicEntryUpdate = Type.Object(
  {
    content: Type.Optional(EntryContent('Replaces the content whole')),
    sortOrder: Type.Optional(SortOrder),
  },
  {
    title: 'TopicEntryUpdate',
    examples: [
      {
        content: {
          type: 'text',
          content:
            'Northwind Outfitters raised booked demos by 41% in eight weeks with a page per target account.',
        },
      },
    ],
    additionalProperties: false,
  },
);
export type TopicEntryUpdate = Static<typeof TopicEntryUpdate>;

/** What a delete answers: 204, no body. */
export const TopicRemoved = Type.Null({ description: 'Deleted: no body' });

export const TopicSearchQuery = Type.Object({ ...PageQuery, query: SearchQuery });
export const TopicList = PagedList(Topic, { title: 'TopicList' });
export const TopicParams = IdParams('topic_id');
export const TopicEntryParams = IdParams('topic_id', 'topic_entry_id');
