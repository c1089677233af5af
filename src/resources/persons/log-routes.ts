import { paginate } from '../../http/pagination.ts';
import type { Api } from '../../http/types.ts';
import { addNote, editNote, listPersonLogs } from './log-service.ts';
import {
  PersonLog,
  PersonLogCreate,
  PersonLogList,
  PersonLogListQuery,
  PersonLogParams,
  PersonLogUpdate,
  PersonParams,
  Success,
} from './schema.ts';

const tags = ['Persons'];

export async function personLogRoutes(api: Api): Promise<void> {
  api.post(
    '/v0/persons/:person_id/logs',
    {
      schema: {
        tags,
        operationId: 'createPersonNote',
        summary: 'Add a note to a person',
        description:
          "Adds a user-authored plain-text note to the person's log; it can be edited later (PATCH …/logs/{person_log_id}).",
        params: PersonParams,
        body: PersonLogCreate,
        response: { 201: PersonLog },
      },
    },
    async (request, reply) => {
      const log = await addNote(request.tenantDb, request.params.person_id, request.body.text);
      return reply
        .code(201)
        .header('Location', `/v0/persons/${log.personId}/logs/${log.personLogId}`)
        .send(log);
    },
  );

  api.get(
    '/v0/persons/:person_id/logs',
    {
      schema: {
        tags,
        operationId: 'listPersonLogs',
        summary: "List a person's log",
        description: 'Notes and activity entries, newest first.',
        params: PersonParams,
        querystring: PersonLogListQuery,
        response: { 200: PersonLogList },
      },
    },
    (request) => {
      const personId = request.params.person_id;
      return paginate(request, { personId }, (page) => listPersonLogs(request.tenantDb, personId, page));
    },
  );

  api.patch(
    '/v0/persons/:person_id/logs/:person_log_id',
    {
      schema: {
        tags,
        operationId: 'updatePersonNote',
        summary: 'Edit a note',
        description:
          'Replaces the text of a user-authored note. Activity entries written by Tailor are 409 invalid_state.',
        params: PersonLogParams,
        body: PersonLogUpdate,
        response: { 200: Success },
      },
    },
    (request) =>
      editNote(request.tenantDb, request.params.person_id, request.params.person_log_id, request.body.text),
  );
}
