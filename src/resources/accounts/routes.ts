import { paginate } from '../../http/pagination.ts';
import type { Api } from '../../http/types.ts';
import {
  Account,
  AccountCreate,
  AccountParams,
  AccountRename,
  AccountSearchList,
  AccountSearchQuery,
} from './schema.ts';
import { createAccount, getAccount, renameAccountById, searchAccountItems } from './service.ts';

const tags = ['Accounts'];

export async function accountRoutes(api: Api): Promise<void> {
  api.post(
    '/v0/accounts',
    {
      schema: {
        tags,
        summary: 'Create an account',
        description:
          'The domain is stored canonical (lowercase, no scheme, port, path or leading www., punycode). 409 when the domain is taken.',
        body: AccountCreate,
        response: { 201: Account },
      },
    },
    async (request, reply) => {
      const account = await createAccount(request.tenantDb, request.body);
      return reply.code(201).header('Location', `/v0/accounts/${account.accountId}`).send(account);
    },
  );

  api.get(
    '/v0/accounts/search',
    {
      schema: {
        tags,
        summary: 'Search accounts',
        description: '`query` matches name and domain (case-insensitive substring). Newest first.',
        querystring: AccountSearchQuery,
        response: { 200: AccountSearchList },
      },
    },
    (request) => {
      const { query, includeEmptyOnly } = request.query;
      const filters = { query: query || undefined, includeEmptyOnly };
      return paginate(request, filters, (page) => searchAccountItems(request.tenantDb, filters, page));
    },
  );

  api.get(
    '/v0/accounts/:account_id',
    { schema: { tags, summary: 'Get an account', params: AccountParams, response: { 200: Account } } },
    (request) => getAccount(request.tenantDb, request.params.account_id),
  );

  api.patch(
    '/v0/accounts/:account_id',
    {
      schema: {
        tags,
        summary: 'Rename an account',
        params: AccountParams,
        body: AccountRename,
        response: { 200: Account },
      },
    },
    (request) => renameAccountById(request.tenantDb, request.params.account_id, request.body.name),
  );
}
