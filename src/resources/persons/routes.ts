import { paginate } from '../../http/pagination.ts';
import type { Api } from '../../http/types.ts';
import {
  Person,
  PersonCreate,
  PersonDeleted,
  PersonList,
  PersonListQuery,
  PersonParams,
  PersonUpdate,
} from './schema.ts';
import {
  type AccountOfDomain,
  createPerson,
  type EraseTraces,
  getPerson,
  listAllPersons,
  removePerson,
  updatePersonFields,
} from './service.ts';

const tags = ['Persons'];

/**
 * The person endpoints; `accountOf` finds the account a person's domain links them to, and
 * `eraseTraces` erases what the service holds of a person elsewhere when they are deleted.
 */
export async function personRoutes(
  api: Api,
  { accountOf, eraseTraces }: { accountOf: AccountOfDomain; eraseTraces: EraseTraces },
): Promise<void> {
  api.post(
    '/v0/persons',
    {
      schema: {
        tags,
        operationId: 'createPerson',
        summary: 'Create a person',
        description:
          'The domain is the given `domain`, else the domain of `email`, canonicalized; the person is linked to the account of that domain, which is created when missing. `email` is unique per tenant (409). `slug` is assigned from the name.',
        body: PersonCreate,
        response: { 201: Person },
      },
    },
    async (request, reply) => {
      const person = await createPerson(request.tenantDb, request.body, accountOf);
      return reply.code(201).header('Location', `/v0/persons/${person.personId}`).send(person);
    },
  );

  api.get(
    '/v0/persons',
    {
      schema: {
        tags,
        operationId: 'listPersons',
        summary: 'List persons',
        description:
          'Newest first. `query` keeps the persons whose name or email contains it (case-insensitive); `email` the one with that email.',
        querystring: PersonListQuery,
        response: { 200: PersonList },
      },
    },
    (request) => {
      const filters = { email: request.query.email, query: request.query.query || undefined };
      return paginate(request, filters, (page) => listAllPersons(request.tenantDb, filters, page));
    },
  );

  api.get(
    '/v0/persons/:person_id',
    {
      schema: {
        tags,
        operationId: 'getPerson',
        summary: 'Get a person',
        description:
          'The person with their email, its domain (which links them to the account of that domain), phone number and profile URL.',
        params: PersonParams,
        response: { 200: Person },
      },
    },
    (request) => getPerson(request.tenantDb, request.params.person_id),
  );

  api.patch(
    '/v0/persons/:person_id',
    {
      schema: {
        tags,
        operationId: 'updatePerson',
        summary: 'Update a person',
        description:
          'Omitted fields stay; `null` clears. Changing the domain or email moves the account link.',
        params: PersonParams,
        body: PersonUpdate,
        response: { 200: Person },
      },
    },
    (request) => updatePersonFields(request.tenantDb, request.params.person_id, request.body, accountOf),
  );

  api.delete(
    '/v0/persons/:person_id',
    {
      schema: {
        tags,
        operationId: 'deletePerson',
        summary: 'Erase a person and their log',
        description:
          "Deletes the person and every entry of their log for good, and in the same transaction what else names them: the copy of every version of the pages made for them (each sentence naming them taken out; an audience of theirs becomes their account's audience, or anyone's), the pages kept for serving (no node serves the old page afterwards), their form submissions, and the events (with their pending deliveries) that carry their details. See docs/security.md#erasure for what it covers and what it does not.",
        params: PersonParams,
        response: { 200: PersonDeleted },
      },
    },
    (request) => removePerson(request.tenantDb, request.params.person_id, eraseTraces, Date.now()),
  );
}
