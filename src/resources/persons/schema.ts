import { type Static, Type } from 'typebox';
import {
  createOf,
  HttpUrl,
  IdParams,
  Nullable,
  PagedList,
  PageQuery,
  patchOf,
  SearchQuery,
  Timestamp,
} from '../../http/schemas.ts';
import { MAX_EMAIL_LENGTH } from '../../shared/email.ts';

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Email = Type.String({
  format: 'email',
  maxLength: MAX_EMAIL_LENGTH,
  description: 'Unique per tenant, case-insensitively',
});
const Domain = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'Canonicalized like an account domain; links the person to that account',
});
const Phone = Type.String({
  pattern: '^\\+[1-9]\\d{1,14}$',
  description:
    'A phone number in international form (E.164) such as +14155550100: "+", the country code and the number, at most 15 digits, no spaces',
  examples: ['+14155550100'],
});

export const Person = Type.Object(
  {
    personId: Type.String({ minLength: 1 }),
    name: Type.String(),
    email: Nullable(Type.String()),
    domain: Nullable(Type.String({ minLength: 1 })),
    slug: Type.String({ description: 'Made from the name when the person is created; never changes' }),
    phoneNumber: Nullable(Phone),
    linkedinProfileUrl: Nullable(Type.String({ minLength: 1 })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    title: 'Person',
    examples: [
      {
        personId: 'person_01jdq3m9x4t6v8w2yz5k7n1p3r',
        name: 'Maya Chen',
        email: 'maya.chen@northwind-outfitters.com',
        domain: 'northwind-outfitters.com',
        slug: 'maya-chen',
        phoneNumber: '+14155550123',
        linkedinProfileUrl: 'https://www.linkedin.com/in/maya-chen-ecommerce',
        createdAt: '+1774526400000',
        updatedAt: '+1774612800000',
      },
    ],
  },
);
export type Person = Static<typeof Person>;

/** What a client may write of a person: the rules of PersonCreate and PersonUpdate. */
const personInput = {
  name: Name,
  email: Email,
  domain: Domain,
  phoneNumber: Phone,
  linkedinProfileUrl: HttpUrl,
};

export const PersonCreate = createOf(personInput, ['name'], {
  title: 'PersonCreate',
  examples: [
    {
      name: 'Maya Chen',
      email: 'maya.chen@northwind-outfitters.com',
      phoneNumber: '+14155550123',
      linkedinProfileUrl: 'https://www.linkedin.com/in/maya-chen-ecommerce',
    },
  ],
});
export type PersonCreate = Static<typeof PersonCreate>;

export const PersonUpdate = patchOf(
  personInput,
  {
    email: {},
    domain: { description: 'null drops a given domain: the domain is then taken from the email again' },
    phoneNumber: {},
    linkedinProfileUrl: {},
  },
  { title: 'PersonUpdate', examples: [{ phoneNumber: '+14155550199', linkedinProfileUrl: null }] },
);
export type PersonUpdate = Static<typeof PersonUpdate>;

export const PersonListQuery = Type.Object({
  ...PageQuery,
  email: Type.Optional(Type.String({ description: 'Only the person with this email (case-insensitive)' })),
  query: SearchQuery,
});

export const PersonList = PagedList(Person, { title: 'PersonList', nullableTotal: true });
export const PersonParams = IdParams('person_id');

export const PersonDeleted = Type.Object(
  {
    personId: Type.String(),
    deleted: Type.Literal(true),
  },
  { title: 'PersonDeleted' },
);

/* The person's log: notes written by users and activity entries written by Tailor. */
const Text = Type.String({ minLength: 1, maxLength: 65536, description: 'Plain text' });

export const PersonLog = Type.Object(
  {
    personLogId: Type.String(),
    personId: Type.String(),
    kind: Type.Union([Type.Literal('note'), Type.Literal('activity')], {
      description: 'note: written by a user; activity: written by Tailor (form submissions, enrichment)',
    }),
    source: Type.Union([Type.Literal('user'), Type.Literal('service'), Type.Literal('visitor')], {
      description:
        "Who wrote the text. user: a client of the API (a note); service: Tailor, in its own words; visitor: an anonymous visitor of a public page (a form's fields, in the entry of its submission). A visitor's words never guide generation; the other entries do.",
    }),
    text: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'PersonLog' },
);
export type PersonLog = Static<typeof PersonLog>;

export const PersonLogCreate = Type.Object(
  { text: Text },
  {
    title: 'PersonLogCreate',
    examples: [
      {
        text: 'Met at NRF 2026. Wants a pilot on the spring collection pages before Q2; loop in their Shopify Plus agency.',
      },
    ],
    additionalProperties: false,
  },
);
export const PersonLogUpdate = Type.Object(
  { text: Type.String({ minLength: 1, maxLength: 65536, description: 'Replacement plain text of a note' }) },
  {
    title: 'PersonLogUpdate',
    examples: [{ text: 'Met at NRF 2026. Pilot agreed for the spring collection pages, starting in March.' }],
    additionalProperties: false,
  },
);

export const Success = Type.Object({ success: Type.Boolean() }, { title: 'Success' });
export const PersonLogList = PagedList(PersonLog, { title: 'PersonLogList' });
export const PersonLogListQuery = Type.Object({ ...PageQuery });
export const PersonLogParams = IdParams('person_id', 'person_log_id');
