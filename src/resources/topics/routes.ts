import { paginate } from '../../http/pagination.ts';
import type { Api } from '../../http/types.ts';
import {
  ENTRIES_PER_TOPIC,
  Topic,
  TopicCreate,
  TopicEntry,
  TopicEntryCreate,
  TopicEntryParams,
  TopicEntryUpdate,
  TopicList,
  TopicParams,
  TopicRemoved,
  TopicSearchQuery,
  TopicUpdate,
} from './schema.ts';
import {
  addTopicEntry,
  createTopic,
  getTopic,
  getTopicEntry,
  removeTopic,
  removeTopicEntry,
  searchTopicItems,
  updateTopicEntry,
  updateTopicFields,
} from './service.ts';

const tags = ['Topics'];

export async function topicRoutes(api: Api): Promise<void> {
  api.post(
    '/v0/topics',
    {
      schema: {
        tags,
        operationId: 'createTopic',
        summary: 'Create a topic',
        description:
          'A topic is knowledge the personalizer draws on. With `isDefault: true` it becomes the default topic, and the former default topic stops being it.',
        body: TopicCreate,
        response: { 201: Topic },
      },
    },
    async (request, reply) => {
      const topic = await createTopic(request.tenantDb, request.body);
      return reply.code(201).header('Location', `/v0/topics/${topic.topicId}`).send(topic);
    },
  );

  api.get(
    '/v0/topics/search',
    {
      schema: {
        tags,
        operationId: 'searchTopics',
        summary: 'Search topics',
        description:
          "`query` matches the title, the purpose and the entries' text (case-insensitive substring). Ordered by sortOrder, then newest first; each topic comes with its entries.",
        querystring: TopicSearchQuery,
        response: { 200: TopicList },
      },
    },
    (request) => {
      const filters = { query: request.query.query || undefined };
      return paginate(request, filters, (page) => searchTopicItems(request.tenantDb, filters, page));
    },
  );

  api.get(
    '/v0/topics/:topic_id',
    {
      schema: {
        tags,
        operationId: 'getTopic',
        summary: 'Get a topic',
        description: 'With its entries, by sortOrder, then newest first.',
        params: TopicParams,
        response: { 200: Topic },
      },
    },
    (request) => getTopic(request.tenantDb, request.params.topic_id),
  );

  api.patch(
    '/v0/topics/:topic_id',
    {
      schema: {
        tags,
        operationId: 'updateTopic',
        summary: 'Update a topic',
        description:
          'An omitted field stays; `null` is refused. `isDefault: true` makes it the default topic in place of the former one. `brandIds` replaces the list whole. A change moves updatedAt.',
        params: TopicParams,
        body: TopicUpdate,
        response: { 200: Topic },
      },
    },
    (request) => updateTopicFields(request.tenantDb, request.params.topic_id, request.body),
  );

  api.delete(
    '/v0/topics/:topic_id',
    {
      schema: {
        tags,
        operationId: 'deleteTopic',
        summary: 'Delete a topic',
        description:
          'Deletes the topic and its entries for good: generation no longer draws on them, from the next version generated on (queued ones included); versions already generated keep their copy. Deleting the default topic leaves the tenant without one.',
        params: TopicParams,
        response: { 204: TopicRemoved },
      },
    },
    async (request, reply) => {
      await removeTopic(request.tenantDb, request.params.topic_id);
      return reply.code(204).send(null);
    },
  );

  api.post(
    '/v0/topics/:topic_id/entries',
    {
      schema: {
        tags,
        operationId: 'createTopicEntry',
        summary: 'Add an entry to a topic',
        description: `Moves the topic's updatedAt. A topic holds at most ${ENTRIES_PER_TOPIC} entries: 409 invalid_state beyond.`,
        params: TopicParams,
        body: TopicEntryCreate,
        response: { 201: TopicEntry },
      },
    },
    async (request, reply) => {
      const entry = await addTopicEntry(request.tenantDb, request.params.topic_id, request.body);
      return reply
        .code(201)
        .header('Location', `/v0/topics/${entry.topicId}/entries/${entry.topicEntryId}`)
        .send(entry);
    },
  );

  api.get(
    '/v0/topics/:topic_id/entries/:topic_entry_id',
    {
      schema: {
        tags,
        operationId: 'getTopicEntry',
        summary: 'Get an entry of a topic',
        description: 'One entry of the topic, with its content and sortOrder.',
        params: TopicEntryParams,
        response: { 200: TopicEntry },
      },
    },
    (request) => getTopicEntry(request.tenantDb, request.params.topic_id, request.params.topic_entry_id),
  );

  api.patch(
    '/v0/topics/:topic_id/entries/:topic_entry_id',
    {
      schema: {
        tags,
        operationId: 'updateTopicEntry',
        summary: 'Update an entry of a topic',
        description:
          '`content` is replaced whole; an omitted field stays; `null` is refused. A change moves the updatedAt of the entry and of its topic. An entry of another topic is 404.',
        params: TopicEntryParams,
        body: TopicEntryUpdate,
        response: { 200: TopicEntry },
      },
    },
    (request) =>
      updateTopicEntry(
        request.tenantDb,
        request.params.topic_id,
        request.params.topic_entry_id,
        request.body,
      ),
  );
  api.delete(
    '/v0/topics/:topic_id/entries/:topic_entry_id',
    {
      schema: {
        tags,
        operationId: 'deleteTopicEntry',
        summary: 'Delete an entry of a topic',
        description:
          "Deletes the entry for good and moves the topic's updatedAt: generation no longer draws on it, from the next version generated on (queued ones included); versions already generated keep their copy. An entry of another topic is 404.",
        params: TopicEntryParams,
        response: { 204: TopicRemoved },
      },
    },
    async (request, reply) => {
      await removeTopicEntry(request.tenantDb, request.params.topic_id, request.params.topic_entry_id);
      return reply.code(204).send(null);
    },
  );
}
