import { type Static, Type } from 'typebox';
import {
  Count,
  IdParams,
  Nullable,
  PagedList,
  PageQuery,
  SearchQuery,
  Timestamp,
} from '../../http/schemas.ts';

const AccountId = Type.String({ pattern: '^account_[a-z0-9]{26}$', minLength: 1 });
const AccountName = Type.String({ minLength: 1, maxLength: 255 });
const AccountDomain = Type.String({
  minLength: 1,
  description: 'Canonical domain: lowercase, no scheme, port, path or leading www., punycode',
});

const accountFields = {
  accountId: AccountId,
  domain: AccountDomain,
  name: Nullable(AccountName),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  latestActivityAt: Nullable(Timestamp, {
    description: 'The latest session, form submission or log entry of a linked person',
  }),
};

/** An account's own fields; the API shows them with the linked persons (workflows/account-view). */
export const AccountFields = Type.Object(accountFields, { title: 'AccountFields' });
export type AccountFields = Static<typeof AccountFields>;

export const AccountSearchItem = Type.Object(
  { ...accountFields, linkedPersonsCount: Count },
  { title: 'AccountSearchItem' },
);
export type AccountSearchItem = Static<typeof AccountSearchItem>;

export const AccountCreate = Type.Object(
  {
    domain: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'Any form of the domain or a URL on it; stored canonical',
    }),
    name: Type.Optional(AccountName),
  },
  {
    title: 'AccountCreate',
    examples: [{ domain: 'https://www.northwind-outfitters.com/about', name: 'Northwind Outfitters' }],
    additionalProperties: false,
  },
);
export type AccountCreate = Static<typeof AccountCreate>;

export const AccountRename = Type.Object(
  { name: AccountName },
  { title: 'AccountRename', examples: [{ name: 'Northwind Outfitters Inc.' }], additionalProperties: false },
);

export const AccountSearchQuery = Type.Object({
  ...PageQuery,
  query: SearchQuery,
  // One string type with a pattern, not a union of four literals: generated clients take a plain string.
  includeEmptyOnly: Type.Optional(
    Type.String({
      pattern: '^(true|false|1|0)$',
      description:
        'A flag such as true: true, false, 1 or 0. true or 1: only accounts with no linked person; false or 0 (the default): every account',
      examples: ['true'],
    }),
  ),
});

export const AccountSearchList = PagedList(AccountSearchItem, { title: 'AccountSearchList' });
export const AccountParams = IdParams('account_id');
