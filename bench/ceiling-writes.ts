/**
 * The ceiling's write layers (bench/ceiling-server.ts): a person's create and a batch of events as
 * SQLite runs them for Tailor, and nothing else. Tailor's schema is migrated (every index and
 * trigger), each request's statements run under a savepoint of their own, and once per turn of the
 * event loop the search changes are applied and the group committed at `synchronous = FULL`, each
 * answer sent after its commit, as Tailor's driver does (src/db/sqlite/driver.ts); no key, no
 * validation, no Kysely, no service.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { openDatabase } from '../src/db/connection.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { sqliteFile } from '../src/db/sqlite/open.ts';
import { newId } from '../src/shared/ids.ts';
import { createTenantWithKey } from '../src/workflows/tenant-setup/service.ts';

type Database = SQLite.Database;

/**
 * Tailor's schema migrated in a new directory under `dir` (each layer has a database of its own),
 * with one tenant, then opened as Tailor opens SQLite.
 */
async function tailorSchema(dir: string): Promise<{ sqlite: Database; tenantId: string }> {
  const dataDir = fs.mkdtempSync(path.join(dir, 'tailor-'));
  const database = openDatabase({ databaseUrl: undefined, dataDir });
  await migrateToLatest(database);
  const { tenantId } = await createTenantWithKey(database, { name: 'Ceiling' });
  await database.close();
  const sqlite = new SQLite(sqliteFile(dataDir));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  return { sqlite, tenantId };
}

/** An insert of `columns` into `table`, as Kysely writes it; `suffix` after its values. */
function insertInto(sqlite: Database, table: string, columns: string[], suffix = '') {
  const names = columns.map((column) => `"${column}"`).join(', ');
  const values = columns.map(() => '?').join(', ');
  return sqlite.prepare(`insert into "${table}" (${names}) values (${values}) ${suffix}`);
}

/**
 * Runs each request's `work` under a savepoint in the turn's group, and answers them all once the
 * group has committed at the end of the turn.
 */
function groupCommits(sqlite: Database): (work: () => void, answer: () => void) => void {
  const statement = (text: string) => {
    const prepared = sqlite.prepare(text);
    return () => prepared.run();
  };
  const begin = statement('BEGIN IMMEDIATE');
  const savepoint = statement('SAVEPOINT unit');
  const release = statement('RELEASE unit');
  const applySearchChanges = statement('INSERT INTO search_changes_applied DEFAULT VALUES');
  const commit = statement('COMMIT');
  let waiting: (() => void)[] = [];
  const commitGroup = () => {
    applySearchChanges();
    commit();
    const answered = waiting;
    waiting = [];
    for (const answer of answered) answer();
  };
  return (work, answer) => {
    if (waiting.length === 0) {
      begin();
      setImmediate(commitGroup);
    }
    savepoint();
    work();
    release();
    waiting.push(answer);
  };
}

const PERSON_COLUMNS = [
  'id',
  'account_id',
  'name',
  'email',
  'email_key',
  'domain',
  'domain_given',
  'slug',
  'phone_number',
  'linkedin_profile_url',
  'latest_activity_at',
  'created_at',
  'updated_at',
  'tenant_id',
];

export interface PersonBody {
  name: string;
  email: string;
}

/**
 * A person's create: the account looked up by the email's domain (100 of them, made here), the
 * insert with its slug, which is the name's own (the bench's names are unique).
 */
export async function personCreates(dir: string): Promise<(body: PersonBody, answer: () => void) => void> {
  const { sqlite, tenantId } = await tailorSchema(dir);
  const now = Date.now();
  const insertAccount = insertInto(sqlite, 'accounts', [
    'id',
    'tenant_id',
    'domain',
    'created_at',
    'updated_at',
  ]);
  for (let n = 0; n < 100; n++)
    insertAccount.run(newId('account'), tenantId, `northwind-${n}.example`, now, now);
  const account = sqlite
    .prepare<[string, string], string>(
      'select "id" from "accounts" where "domain" = ? and "accounts"."tenant_id" = ?',
    )
    .pluck();
  const insert = insertInto(
    sqlite,
    'persons',
    PERSON_COLUMNS,
    'on conflict ("tenant_id", "slug") do nothing',
  );
  const inGroup = groupCommits(sqlite);
  return ({ name, email }, answer) =>
    inGroup(() => {
      const domain = email.slice(email.indexOf('@') + 1);
      const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      const at = Date.now();
      const accountId = account.get(domain, tenantId) ?? null;
      insert.run(
        newId('person'),
        accountId,
        name,
        email,
        email.toLowerCase(),
        domain,
        0,
        slug,
        null,
        null,
        null,
        at,
        at,
        tenantId,
      );
    }, answer);
}

export interface EventsBody {
  sessionId: string;
  events: { type: string; at: number; depth?: number; ms?: number }[];
}

const HOUR_MS = 3_600_000;

/**
 * A batch of events that starts its session: the page, the person and their account, the
 * audience and its link made here as the events bench has them; per batch the session's insert
 * (its analytics and activity triggers) and the hour's change of the audience's totals (its rollup
 * triggers), the two statements Tailor runs for such a batch.
 */
export async function eventBatches(dir: string): Promise<(body: EventsBody, answer: () => void) => void> {
  const { sqlite, tenantId } = await tailorSchema(dir);
  const now = Date.now();
  const [accountId, personId, pageId, audienceId, linkId] = [
    newId('account'),
    newId('person'),
    newId('page'),
    newId('audience'),
    newId('pagelink'),
  ];
  insertInto(sqlite, 'accounts', ['id', 'tenant_id', 'domain', 'created_at', 'updated_at']).run(
    accountId,
    tenantId,
    'northwind.example',
    now,
    now,
  );
  const email = 'dana@northwind.example';
  insertInto(sqlite, 'persons', PERSON_COLUMNS).run(
    personId,
    accountId,
    'Dana Reyes',
    email,
    email,
    'northwind.example',
    0,
    'dana-reyes',
    null,
    null,
    null,
    now,
    now,
    tenantId,
  );
  insertInto(sqlite, 'pages', [
    'id',
    'tenant_id',
    'name',
    'title',
    'page_context',
    'page_type',
    'status',
    'brand_id',
    'actions',
    'action_card_widgets',
    'scripts',
    'created_at',
    'updated_at',
  ]).run(
    pageId,
    tenantId,
    'Spring launch',
    'Spring launch',
    'Bench.',
    'standard',
    'published',
    'b',
    '[]',
    '[]',
    '[]',
    now,
    now,
  );
  insertInto(sqlite, 'audiences', [
    'id',
    'tenant_id',
    'page_id',
    'number',
    'person_id',
    'account_id',
    'is_new_page_agent',
    'auto_publish',
    'latest_version_id',
    'published_version_id',
    'created_at',
    'updated_at',
  ]).run(audienceId, tenantId, pageId, 1, personId, accountId, 0, 1, 'version_1', 'version_1', now, now);
  insertInto(sqlite, 'page_links', [
    'id',
    'tenant_id',
    'path',
    'target_type',
    'audience_id',
    'created_at',
    'updated_at',
  ]).run(linkId, tenantId, '/spring/northwind', 'audience', audienceId, now, now);
  const insertSession = insertInto(
    sqlite,
    'sessions',
    [
      'id',
      'page_id',
      'audience_id',
      'page_link_id',
      'arm',
      'started_at',
      'last_event_at',
      'interactions',
      'cta_clicks',
      'form_submits',
      'max_scroll_depth',
      'time_spent_ms',
      'tenant_id',
    ],
    'on conflict ("tenant_id", "id") do nothing',
  );
  const addToHour = insertInto(sqlite, 'audience_stat_changes', [
    'audience_id',
    'hour',
    'arm',
    'sessions',
    'interactions',
    'scroll_depth_sum',
    'time_spent_ms_sum',
    'bounces',
    'conversions',
    'cta_sessions',
    'form_submit_sessions',
    'tenant_id',
  ]);
  const inGroup = groupCommits(sqlite);
  return ({ sessionId, events }, answer) =>
    inGroup(() => {
      const started = events[0]?.at ?? Date.now();
      const last = Math.max(...events.map((event) => event.at));
      const interactions = events.filter((event) => event.type === 'interaction').length;
      const depth = Math.max(0, ...events.map((event) => event.depth ?? 0));
      const spent = Math.max(0, ...events.map((event) => event.ms ?? 0));
      const arm = 'personalized';
      insertSession.run(
        sessionId,
        pageId,
        audienceId,
        linkId,
        arm,
        started,
        last,
        interactions,
        0,
        0,
        depth,
        spent,
        tenantId,
      );
      const hour = Math.floor(started / HOUR_MS) * HOUR_MS;
      addToHour.run(
        audienceId,
        hour,
        arm,
        1,
        interactions,
        depth,
        spent,
        interactions > 0 ? 0 : 1,
        0,
        0,
        0,
        tenantId,
      );
    }, answer);
}
