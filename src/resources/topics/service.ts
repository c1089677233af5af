import type { Paged, Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { invalidState, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { toTimestamp } from '../../shared/time.ts';
import {
  ENTRIES_PER_TOPIC,
  type Topic,
  type TopicCreate,
  type TopicEntry,
  type TopicEntryCreate,
  type TopicEntryUpdate,
} from './schema.ts';
import {
  allEntries,
  allTopics,
  clearDefaultTopic,
  countEntries,
  entriesOf,
  findEntry,
  findTopic,
  insertEntry,
  insertTopic,
  searchTopics,
  type TopicEntryChanges,
  type TopicEntryRow,
  type TopicRow,
  touchTopic,
  updateEntry,
} from './store.ts';

// Each conflicting attempt lets one concurrent default creation through, so a few always suffice.
const CREATE_ATTEMPTS = 5;

function presentEntry(row: TopicEntryRow): TopicEntry {
  return {
    topicEntryId: row.id,
    topicId: row.topic_id,
    sortOrder: row.sort_order,
    content: { type: row.content_type, content: row.content_text },
    createdAt: toTimestamp(row.created_at),
    updatedAt: toTimestamp(row.updated_at),
  };
}

function presentTopic(row: TopicRow, entries: TopicEntryRow[]): Topic {
  return {
    topicId: row.id,
    title: row.title,
    purpose: row.purpose,
    sortOrder: row.sort_order,
    isDefault: row.is_default === 1,
    createdAt: toTimestamp(row.created_at),
    updatedAt: toTimestamp(row.updated_at),
    entries: entries.map(presentEntry),
  };
}

/** Presents topics with their entries; `entries` are in list order, so each topic's stay so. */
function withEntries(topics: TopicRow[], entries: TopicEntryRow[]): Topic[] {
  const byTopic = new Map<string, TopicEntryRow[]>(topics.map((topic) => [topic.id, []]));
  for (const entry of entries) byTopic.get(entry.topic_id)?.push(entry);
  return topics.map((topic) => presentTopic(topic, byTopic.get(topic.id) ?? []));
}

async function requireTopic(db: TenantDb, id: string): Promise<TopicRow> {
  const row = await findTopic(db, id);
  if (!row) throw notFound(`Topic ${id}`);
  return row;
}

async function requireEntry(db: TenantDb, topicId: string, id: string): Promise<TopicEntryRow> {
  const row = await findEntry(db, topicId, id);
  if (!row) throw notFound(`Entry ${id} of topic ${topicId}`);
  return row;
}

/**
 * Creates a topic. A new default topic takes the place of the former one; when two are created at
 * once, the unique index lets one win and the other runs again, taking the place of the winner.
 */
export async function createTopic(db: TenantDb, input: TopicCreate): Promise<Topic> {
  for (let attempt = 1; ; attempt++) {
    const now = Date.now();
    const row: TopicRow = {
      id: newId('topic'),
      title: input.title,
      purpose: input.purpose ?? '',
      sort_order: input.sortOrder ?? 0,
      is_default: input.isDefault ? 1 : 0,
      created_at: now,
      updated_at: now,
    };
    try {
      await db.transaction(async (tx) => {
        if (row.is_default) await clearDefaultTopic(tx, now);
        await insertTopic(tx, row);
      });
      return presentTopic(row, []);
    } catch (error) {
      if (!db.dialect.isUniqueViolation(error) || attempt >= CREATE_ATTEMPTS) throw error;
    }
  }
}

export async function getTopic(db: TenantDb, id: string): Promise<Topic> {
  const row = await requireTopic(db, id);
  return presentTopic(row, await entriesOf(db, [id]));
}

/** Topics whose title, purpose or any entry's text contains `query`, by sortOrder, then newest first. */
export async function searchTopicItems(
  db: TenantDb,
  filter: { query?: string },
  page: Paging,
): Promise<Paged<Topic>> {
  const found = await searchTopics(db, filter, page);
  const ids = found.items.map((row) => row.id);
  const entries = await entriesOf(db, ids);
  return { ...found, items: withEntries(found.items, entries) };
}

/** Every topic of the tenant with its entries, in list order: the knowledge the personalizer draws on. */
export async function topicsForPersonalization(db: TenantDb): Promise<Topic[]> {
  const [topics, entries] = await Promise.all([allTopics(db), allEntries(db)]);
  return withEntries(topics, entries);
}

export async function getTopicEntry(db: TenantDb, topicId: string, id: string): Promise<TopicEntry> {
  return presentEntry(await requireEntry(db, topicId, id));
}

/** Adds an entry to a topic, whose updatedAt moves with it. A topic holds at most ENTRIES_PER_TOPIC. */
export async function addTopicEntry(
  db: TenantDb,
  topicId: string,
  input: TopicEntryCreate,
): Promise<TopicEntry> {
  const now = Date.now();
  const row: TopicEntryRow = {
    id: newId('topicentry'),
    topic_id: topicId,
    sort_order: input.sortOrder ?? 0,
    content_type: input.content.type,
    content_text: input.content.content,
    created_at: now,
    updated_at: now,
  };
  await db.transaction(async (tx) => {
    // Touching the topic first locks its row, so concurrent additions cannot both pass the limit.
    if (!(await touchTopic(tx, topicId, now))) throw notFound(`Topic ${topicId}`);
    if ((await countEntries(tx, topicId)) >= ENTRIES_PER_TOPIC) {
      throw invalidState(`Topic ${topicId} is full: it has ${ENTRIES_PER_TOPIC} entries, the maximum`);
    }
    await insertEntry(tx, row);
  });
  return presentEntry(row);
}

/**
 * Applies the fields given: `content` is replaced whole, an omitted field stays. Any change moves
 * the updatedAt of the entry and of its topic; an empty update changes nothing.
 */
export async function updateTopicEntry(
  db: TenantDb,
  topicId: string,
  id: string,
  input: TopicEntryUpdate,
): Promise<TopicEntry> {
  const current = await requireEntry(db, topicId, id);
  if (input.content === undefined && input.sortOrder === undefined) return presentEntry(current);
  const now = Date.now();
  const changes: TopicEntryChanges = { updated_at: now };
  if (input.sortOrder !== undefined) changes.sort_order = input.sortOrder;
  if (input.content !== undefined) {
    changes.content_type = input.content.type;
    changes.content_text = input.content.content;
  }
  await db.transaction(async (tx) => {
    await updateEntry(tx, id, changes);
    await touchTopic(tx, topicId, now);
  });
  return getTopicEntry(db, topicId, id);
}
