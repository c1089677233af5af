import { paginate } from '../../http/pagination.ts';
import type { Api } from '../../http/types.ts';
import { AccountSearchList, AccountSearchQuery } from './schema.ts';
import { searchAccountItems } from './service.ts';

const tags = ['Accounts'];

/** Account search; the other account endpoints show linked persons (workflows/account-view). */
export async function accountRoutes(api: Api): Promise<void> {
  api.get(
    '/v0/accounts/search',
    {
      schema: {
        tags,
        operationId: 'searchAccounts',
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
}
