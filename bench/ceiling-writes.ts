/**
 * The ceiling's write layers (bench/ceiling-server.ts): a person's create and a batch of events as
 * SQLite runs them for Tailor, and nothing else. Tailor's schema is migrated (every index and
 * trigger), each request's statements run under a savepoint of their own, and once per turn of the
 * event loop the search changes are applied and the group committed at `synchronous = FULL`, each
 * answer sent after its commit, as Tailor's driver does (src/db/sqlite/driver.ts); no key, no
 * token, no validation, no Kysely, no service.
 */
import fs from 'node:fs';
import path from 'node:path';
import type SQLite from 'better-sqlite3';
import { openDatabase } from '../src/db/connection.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { connectSqlite } from '../src/db/sqlite/open.ts';
import { newId } from '../src/shared/ids.ts';
import { slugOf } from '../src/shared/slug.ts';
import { createTenantWithKey } from '../src/workflows/tenant-setup/service.ts';

type Database = SQLite.Database;
type Row = Record<string, string | number | null>;

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
  return { sqlite: connectSqlite(dataDir), tenantId };
}

/**
 * An insert of a row into `table`, every column written but those `skipped` (filled by the table's
 * own triggers or key), as Tailor's stores write them; `suffix` after its values.
 */
function inserter(sqlite: Database, table: string, skipped: string[] = [], suffix = '') {
  const columns = (sqlite.pragma(`table_info(${table})`) as { name: string }[])
    .map((column) => column.name)
    .filter((name) => !skipped.includes(name));
  const names = columns.map((column) => `"${column}"`).join(', ');
  const values = columns.map((column) => `@${column}`).join(', ');
  const insert = sqlite.prepare(`insert into "${table}" (${names}) values (${values}) ${suffix}`);
  return (row: Row) => insert.run(row);
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

/** A person's row as Tailor's create writes it: linked to the account of the email's domain. */
function personRow(tenantId: string, name: string, email: string, accountId: string | null): Row {
  const at = Date.now();
  return {
    id: newId('person'),
    tenant_id: tenantId,
    account_id: accountId,
    name,
    email,
    email_key: email.toLowerCase(),
    domain: email.slice(email.indexOf('@') + 1),
    domain_given: 0,
    slug: slugOf(name, 80),
    phone_number: null,
    linkedin_profile_url: null,
    latest_activity_at: null,
    created_at: at,
    updated_at: at,
  };
}

/** An account without a name, as a person's domain makes one. */
function accountRow(tenantId: string, domain: string): Row {
  const at = Date.now();
  return { id: newId('account'), tenant_id: tenantId, domain, name: null, created_at: at, updated_at: at };
}

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
  const insertAccount = inserter(sqlite, 'accounts', ['seq', 'linked_persons_count', 'latest_activity_at']);
  for (let n = 0; n < 100; n++) insertAccount(accountRow(tenantId, `northwind-${n}.example`));
  const account = sqlite
    .prepare<[string, string], string>(
      'select "id" from "accounts" where "domain" = ? and "accounts"."tenant_id" = ?',
    )
    .pluck();
  const insertPerson = inserter(sqlite, 'persons', ['seq'], 'on conflict ("tenant_id", "slug") do nothing');
  const inGroup = groupCommits(sqlite);
  return ({ name, email }, answer) =>
    inGroup(() => {
      const accountId = account.get(email.slice(email.indexOf('@') + 1), tenantId) ?? null;
      insertPerson(personRow(tenantId, name, email, accountId));
    }, answer);
}

export interface EventsBody {
  sessionId: string;
  events: { type: string; at: number; depth?: number; ms?: number }[];
}

const HOUR_MS = 3_600_000;

/**
 * The page, the person with their account, the audience and its link of the events bench
 * (bench/support.ts, linkedBenchPage), as rows.
 */
function linkedPage(sqlite: Database, tenantId: string) {
  const at = Date.now();
  const account = accountRow(tenantId, 'northwind.example');
  const accountId = account.id as string;
  const person = personRow(tenantId, 'Dana Reyes', 'dana@northwind.example', accountId);
  const ids = { pageId: newId('page'), audienceId: newId('audience'), linkId: newId('pagelink') };
  inserter(sqlite, 'accounts', ['seq', 'linked_persons_count', 'latest_activity_at'])(account);
  inserter(sqlite, 'persons', ['seq'])(person);
  inserter(sqlite, 'pages', ['seq', 'audiences_count'])({
    id: ids.pageId,
    tenant_id: tenantId,
    name: 'Spring launch',
    title: 'Spring launch',
    page_context: 'Bench.',
    page_type: 'standard',
    status: 'published',
    brand_id: 'brightwave',
    actions: '[]',
    action_card_widgets: '[]',
    scripts: '[]',
    footer_links: null,
    header_action_id: null,
    metadata: null,
    created_at: at,
    updated_at: at,
    archived_at: null,
    deleted_at: null,
  });
  inserter(sqlite, 'audiences', ['holdout_percent'])({
    id: ids.audienceId,
    tenant_id: tenantId,
    page_id: ids.pageId,
    number: 1,
    custom_name: null,
    person_id: person.id as string,
    account_id: accountId,
    is_new_page_agent: 0,
    action_form_id_override: null,
    action_form_instructions_override: null,
    action_url_override: null,
    supplementary_context: null,
    metadata_override: null,
    auto_publish: 1,
    latest_version_id: 'version_1',
    published_version_id: 'version_1',
    created_at: at,
    updated_at: at,
    archived_at: null,
  });
  inserter(
    sqlite,
    'page_links',
  )({
    id: ids.linkId,
    tenant_id: tenantId,
    path: '/spring/northwind',
    target_type: 'audience',
    audience_id: ids.audienceId,
    tenant_domain_id: null,
    created_at: at,
    updated_at: at,
    deleted_at: null,
  });
  return ids;
}

/**
 * A batch of events that starts its session: the session's insert (its analytics and activity
 * triggers) and the hour's change of the audience's totals (its rollup triggers), the two
 * statements Tailor runs for such a batch.
 */
export async function eventBatches(dir: string): Promise<(body: EventsBody, answer: () => void) => void> {
  const { sqlite, tenantId } = await tailorSchema(dir);
  const { pageId, audienceId, linkId } = linkedPage(sqlite, tenantId);
  const insertSession = inserter(sqlite, 'sessions', [], 'on conflict ("tenant_id", "id") do nothing');
  const addToHour = inserter(sqlite, 'audience_stat_changes', ['id']);
  const inGroup = groupCommits(sqlite);
  return ({ sessionId, events }, answer) =>
    inGroup(() => {
      const startedAt = events[0]?.at ?? Date.now();
      const interactions = events.filter((event) => event.type === 'interaction').length;
      const depth = Math.max(0, ...events.map((event) => event.depth ?? 0));
      const spent = Math.max(0, ...events.map((event) => event.ms ?? 0));
      const arm = 'personalized';
      insertSession({
        id: sessionId,
        tenant_id: tenantId,
        page_id: pageId,
        audience_id: audienceId,
        page_link_id: linkId,
        arm,
        started_at: startedAt,
        last_event_at: Math.max(...events.map((event) => event.at)),
        interactions,
        cta_clicks: 0,
        form_submits: 0,
        max_scroll_depth: depth,
        time_spent_ms: spent,
      });
      addToHour({
        tenant_id: tenantId,
        audience_id: audienceId,
        hour: Math.floor(startedAt / HOUR_MS) * HOUR_MS,
        arm,
        sessions: 1,
        interactions,
        scroll_depth_sum: depth,
        time_spent_ms_sum: spent,
        bounces: interactions > 0 ? 0 : 1,
        conversions: 0,
        cta_sessions: 0,
        form_submit_sessions: 0,
      });
    }, answer);
}
