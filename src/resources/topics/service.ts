import { Type } from 'typebox';
import { CREATED_AND_UPDATED, fieldsOf, flag, json } from '../../db/fields.ts';
import type { Paged, Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { found, invalidState, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import {
  ENTRIES_PER_TOPIC,
  Topic,
  TopicCreate,
  TopicEntry,
  type TopicEntryCreate,
  type TopicEntryUpdate,
  type TopicUpdate,
} from './schema.ts';
import {
  allEntries,
  allTopics,
  clearDefaultTopic,
  countEntries,
  deleteEntry,
  deleteTopicWithEntries,
  entriesOf,
  findEntry,
  findTopic,
  insertEntry,
  insertTopic,
  searchTopics,
  type TopicChanges,
  type TopicEntryChanges,
  type TopicEntryRow,
  type TopicRow,
  touchTopic,
  updateEntry,
  updateTopic,
} from './store.ts';

// Each conflicting attempt lets one concurrent new default through, so a few always suffice.
const DEFAULT_ATTEMPTS = 5;

const entryFields = fieldsOf<TopicEntryRow>()(TopicEntry, {
  topicEntryId: 'id',
  topicId: 'topic_id',
  sortOrder: 'sort_order',
  // Two columns: written whole by the service.
  content: (row) => ({ type: row.content_type, content: row.content_text }),
  ...CREATED_AND_UPDATED,
});

const presentEntry = entryFields.present;

/** A topic's own fields; its entries are rows of their own. */
const topicFields = fieldsOf<TopicRow>()(Type.Omit(Topic, ['entries']), {
  topicId: 'id',
  title: 'title',
  purpose: 'purpose',
  sortOrder: 'sort_order',
  isDefault: { column: 'is_default', codec: flag },
  brandIds: { column: 'brand_ids', codec: json<string[]>() },
  ...CREATED_AND_UPDATED,
});

function presentTopic(row: TopicRow, entries: TopicEntryRow[]): Topic {
  return { ...topicFields.present(row), entries: entries.map(presentEntry) };
}

/** Presents topics with their entries; `entries` are in list order, so each topic's stay so. */
function withEntries(topics: TopicRow[], entries: TopicEntryRow[]): Topic[] {
  const byTopic = new Map<string, TopicEntryRow[]>(topics.map((topic) => [topic.id, []]));
  for (const entry of entries) byTopic.get(entry.topic_id)?.push(entry);
  return topics.map((topic) => presentTopic(topic, byTopic.get(topic.id) ?? []));
}

async function requireTopic(db: TenantDb, id: string): Promise<TopicRow> {
  return found(await findTopic(db, id), `Topic ${id}`);
}

async function requireEntry(db: TenantDb, topicId: string, id: string): Promise<TopicEntryRow> {
  return found(await findEntry(db, topicId, id), `Entry ${id} of topic ${topicId}`);
}

/**
 * Creates a topic. A new default topic takes the place of the former one; when two are created at
 * once, the unique index lets one win and the other runs again, taking the place of the winner.
 */
export async function createTopic(db: TenantDb, input: TopicCreate): Promise<Topic> {
  const row = await db.retryingTransaction(DEFAULT_ATTEMPTS, async (tx) => {
    const now = Date.now();
    const row: TopicRow = {
      ...topicFields.columns(TopicCreate, {
        purpose: '',
        sortOrder: 0,
        isDefault: false,
        brandIds: [],
        ...input,
      }),
      id: newId('topic'),
      created_at: now,
      updated_at: now,
    };
    if (row.is_default) await clearDefaultTopic(tx, now);
    await insertTopic(tx, row);
    return row;
  });
  return presentTopic(row, []);
}

/**
 * Applies the fields given; an omitted field stays. `isDefault: true` takes the default's place
 * from the former default topic. Any change moves updatedAt; an empty update changes nothing.
 */
export async function updateTopicFields(db: TenantDb, id: string, input: TopicUpdate): Promise<Topic> {
  await requireTopic(db, id);
  if (Object.keys(input).length === 0) return getTopic(db, id);
  return db.retryingTransaction(DEFAULT_ATTEMPTS, async (tx) => {
    const now = Date.now();
    if (input.isDefault) await clearDefaultTopic(tx, now);
    const changes: TopicChanges = { ...topicFields.write(input), updated_at: now };
    await updateTopic(tx, id, changes);
    // Read in the transaction: the answer is the topic as this write left it (decisions §2).
    return getTopic(tx, id);
  });
}

export async function getTopic(db: TenantDb, id: string): Promise<Topic> {
  const row = await requireTopic(db, id);
  return presentTopic(row, await entriesOf(db, [id]));
}

/**
 * Deletes a topic with its entries, so that generation no longer draws on them; versions already
 * generated keep their copy. Touching the topic first locks its row, so that an entry added at the
 * same time either comes before (and is deleted with it) or finds no topic.
 */
export async function removeTopic(db: TenantDb, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    if (!(await touchTopic(tx, id, Date.now()))) throw notFound(`Topic ${id}`);
    await deleteTopicWithEntries(tx, id);
  });
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

/** Whether a topic may feed pages of `brandId`: it is for that brand, or for every brand. */
export function isForBrand(topic: Pick<Topic, 'brandIds'>, brandId: string): boolean {
  return topic.brandIds.length === 0 || topic.brandIds.includes(brandId);
}

/**
 * The tenant's topics with their entries, in list order, split by brand: those a page of `brandId`
 * may draw on (its own and the shared ones), and the others, which it must never show.
 */
export async function topicsForBrand(
  db: TenantDb,
  brandId: string,
): Promise<{ own: Topic[]; others: Topic[] }> {
  const [topics, entries] = await Promise.all([allTopics(db), allEntries(db)]);
  const all = withEntries(topics, entries);
  return {
    own: all.filter((topic) => isForBrand(topic, brandId)),
    others: all.filter((topic) => !isForBrand(topic, brandId)),
  };
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
  const { content, ...fields } = input;
  const changes: TopicEntryChanges = { ...entryFields.write(fields), updated_at: now };
  if (content !== undefined) {
    changes.content_type = content.type;
    changes.content_text = content.content;
  }
  return db.transaction(async (tx) => {
    await updateEntry(tx, id, changes);
    await touchTopic(tx, topicId, now);
    return getTopicEntry(tx, topicId, id);
  });
}

/** Deletes an entry of the topic, whose updatedAt moves; generation no longer draws on it. */
export async function removeTopicEntry(db: TenantDb, topicId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    if (!(await touchTopic(tx, topicId, Date.now())) || !(await deleteEntry(tx, topicId, id))) {
      throw notFound(`Entry ${id} of topic ${topicId}`);
    }
  });
}
