import type { Selectable, SelectQueryBuilder, Updateable } from 'kysely';
import { keysetPage, type Paged, type Paging, pagedOf, type SortKey } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { TopicEntriesTable, TopicsTable, TopicsTables } from './tables.ts';

export type TopicRow = Omit<Selectable<TopicsTable>, 'tenant_id'>;
export type TopicEntryRow = Omit<Selectable<TopicEntriesTable>, 'tenant_id'>;
export type TopicChanges = Omit<Updateable<TopicsTable>, 'tenant_id' | 'id' | 'created_at'>;
export type TopicEntryChanges = Pick<
  Updateable<TopicEntriesTable>,
  'sort_order' | 'content_type' | 'content_text' | 'updated_at'
>;

const TOPIC_COLUMNS = [
  'topics.id',
  'topics.title',
  'topics.purpose',
  'topics.sort_order',
  'topics.is_default',
  'topics.brand_ids',
  'topics.created_at',
  'topics.updated_at',
] as const;

const ENTRY_COLUMNS = [
  'id',
  'topic_id',
  'sort_order',
  'content_type',
  'content_text',
  'created_at',
  'updated_at',
] as const;

const LIST_ORDER: SortKey[] = [
  { column: 'topics.sort_order', direction: 'asc' },
  { column: 'topics.id', direction: 'desc' },
];

function inListOrder<O>(query: SelectQueryBuilder<TopicsTables, 'topics', O>) {
  return query.orderBy('topics.sort_order', 'asc').orderBy('topics.id', 'desc');
}

export async function insertTopic(db: TenantDb<TopicsTables>, row: TopicRow): Promise<void> {
  await db.insertInto('topics', row).execute();
}

/** The tenant's default topic, if any, stops being the default. */
export async function clearDefaultTopic(db: TenantDb<TopicsTables>, at: number): Promise<void> {
  await db.updateTable('topics').set({ is_default: 0, updated_at: at }).where('is_default', '=', 1).execute();
}

export function findTopic(db: TenantDb<TopicsTables>, id: string): Promise<TopicRow | undefined> {
  return db.selectFrom('topics').select(TOPIC_COLUMNS).where('topics.id', '=', id).executeTakeFirst();
}

export async function updateTopic(
  db: TenantDb<TopicsTables>,
  id: string,
  changes: TopicChanges,
): Promise<void> {
  await db.updateTable('topics').set(changes).where('id', '=', id).execute();
}

/** Moves the topic's updatedAt; false when there is no such topic. Locks the topic row until commit. */
export async function touchTopic(db: TenantDb<TopicsTables>, id: string, at: number): Promise<boolean> {
  const result = await db
    .updateTable('topics')
    .set({ updated_at: at })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes the topic and its entries; false when there is no such topic. */
export async function deleteTopicWithEntries(db: TenantDb<TopicsTables>, id: string): Promise<boolean> {
  await db.deleteFrom('topic_entries').where('topic_id', '=', id).execute();
  const result = await db.deleteFrom('topics').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export function allTopics(db: TenantDb<TopicsTables>): Promise<TopicRow[]> {
  return inListOrder(db.selectFrom('topics').select(TOPIC_COLUMNS)).execute();
}

export async function searchTopics(
  db: TenantDb<TopicsTables>,
  filter: { query?: string },
  page: Paging,
): Promise<Paged<TopicRow>> {
  let matching = db.selectFrom('topics');
  if (filter.query) {
    const query = filter.query;
    const entryMatches = db
      .selectFrom('topic_entries')
      .select('topic_entries.topic_id')
      .where(db.search.substringMatch('topic_entries', ['content_text'], query, db.tenantId));
    matching = matching.where((eb) =>
      eb.or([
        db.search.substringMatch('topics', ['title', 'purpose'], query, db.tenantId),
        eb('topics.id', 'in', entryMatches),
      ]),
    );
  }
  const [rows, total] = await Promise.all([
    keysetPage(matching.select(TOPIC_COLUMNS), LIST_ORDER, page),
    db.countRows(matching),
  ]);
  return pagedOf(rows, page, (row) => [row.sort_order, row.id], total);
}

export async function insertEntry(db: TenantDb<TopicsTables>, row: TopicEntryRow): Promise<void> {
  await db.insertInto('topic_entries', row).execute();
}

export function countEntries(db: TenantDb<TopicsTables>, topicId: string): Promise<number> {
  return db.countRows(db.selectFrom('topic_entries').where('topic_id', '=', topicId));
}

export function findEntry(
  db: TenantDb<TopicsTables>,
  topicId: string,
  id: string,
): Promise<TopicEntryRow | undefined> {
  return db
    .selectFrom('topic_entries')
    .select(ENTRY_COLUMNS)
    .where('topic_id', '=', topicId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateEntry(
  db: TenantDb<TopicsTables>,
  id: string,
  changes: TopicEntryChanges,
): Promise<void> {
  await db.updateTable('topic_entries').set(changes).where('id', '=', id).execute();
}

/** Deletes one entry of the topic; false when the topic has no such entry. */
export async function deleteEntry(db: TenantDb<TopicsTables>, topicId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('topic_entries')
    .where('topic_id', '=', topicId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The entries of the given topics, in list order (grouped by topic, the order within each holds). */
export async function entriesOf(db: TenantDb<TopicsTables>, topicIds: string[]): Promise<TopicEntryRow[]> {
  if (topicIds.length === 0) return [];
  return db
    .selectFrom('topic_entries')
    .select(ENTRY_COLUMNS)
    .where('topic_id', 'in', topicIds)
    .orderBy('sort_order', 'asc')
    .orderBy('id', 'desc')
    .execute();
}

export function allEntries(db: TenantDb<TopicsTables>): Promise<TopicEntryRow[]> {
  return db
    .selectFrom('topic_entries')
    .select(ENTRY_COLUMNS)
    .orderBy('sort_order', 'asc')
    .orderBy('id', 'desc')
    .execute();
}
