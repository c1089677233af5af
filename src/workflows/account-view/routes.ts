import type { Api } from '../../http/types.ts';
import { AccountCreate, AccountParams, AccountRename } from '../../resources/accounts/schema.ts';
import { Account } from './schema.ts';
import { AccountViews, createAccount, renameAccount } from './service.ts';

const tags = ['Accounts'];

/** The account endpoints that show an account with its linked persons. */
export async function accountViewRoutes(api: Api): Promise<void> {
  const views = new AccountViews();
  api.post(
    '/v0/accounts',
    {
      schema: {
        tags,
        operationId: 'createAccount',
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
    '/v0/accounts/:account_id',
    {
      schema: {
        tags,
        operationId: 'getAccount',
        summary: 'Get an account',
        description: 'The account with its canonical domain, its linked persons and their latest activity.',
        params: AccountParams,
        response: { 200: Account },
      },
    },
    (request) => views.get(request.tenantDb, request.params.account_id),
  );

  api.patch(
    '/v0/accounts/:account_id',
    {
      schema: {
        tags,
        operationId: 'renameAccount',
        summary: 'Rename an account',
        description: "Changes the account's name; its domain, which persons are linked by, stays.",
        params: AccountParams,
        body: AccountRename,
        response: { 200: Account },
      },
    },
    (request) => renameAccount(request.tenantDb, request.params.account_id, request.body.name),
  );
}
