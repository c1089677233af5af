import type { Kysely, Selectable } from 'kysely';
import { compiledAcrossTenants } from '../../db/compiled.ts';
import type { Locks } from '../../db/engine.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { Arm } from '../../shared/arm.ts';

/**
 * The read model of what is served (migration 0025, docs/public-pages.md): its SQL, here in the
 * workflow that owns it. Across tenants: a page is found by its address, before its tenant is known.
 */

export interface ServedPagesTable {
  /** `s {slug}{path}` on the shared address, `d {hostname}{path}` on a tenant domain (addressKey). */
  address_key: string;
  arm: Arm;
  tenant_id: string;
  /** The tenant's serving generation the row was built at: it is served while that is current. */
  generation: number;
  audience_id: string;
  /** The holdout's share in effect: 0 while there is none (or only the baseline is published). */
  holdout_percent: number;
  html: string;
  gzip: Buffer;
  etag: string;
  token_expires_at: number;
  built_at: number;
}

export interface ServingGenerationsTable {
  tenant_id: string;
  generation: number;
}

export interface ServedTables {
  served_pages: ServedPagesTable;
  serving_generations: ServingGenerationsTable;
}

export type ServedRow = Selectable<ServedPagesTable>;

/** What a page view reads of a kept row: its body in one encoding, the one the request takes. */
export type ServedRead = Pick<
  ServedRow,
  'arm' | 'tenant_id' | 'generation' | 'audience_id' | 'holdout_percent' | 'etag' | 'token_expires_at'
> & { body: string | Buffer };

/**
 * The rows of both arms at an address that were built at their tenant's current generation, with
 * the body in `body` (the html, or its gzip bytes): a body is a few kilobytes, which SQLite reads
 * from overflow pages, so only the one sent is read.
 */
function servedAt(body: 's.html' | 's.gzip') {
  return compiledAcrossTenants((db: Kysely<ServedTables>, p: { addressKey: string }) =>
    db
      .selectFrom('served_pages as s')
      .innerJoin('serving_generations as g', (join) =>
        join.onRef('g.tenant_id', '=', 's.tenant_id').onRef('g.generation', '=', 's.generation'),
      )
      .select([
        's.arm',
        's.tenant_id',
        's.generation',
        's.audience_id',
        's.holdout_percent',
        's.etag',
        's.token_expires_at',
      ])
      .select(`${body} as body`)
      .where('s.address_key', '=', p.addressKey),
  );
}

const servedHtmlAt = servedAt('s.html');
const servedGzipAt = servedAt('s.gzip');

/**
 * The page view's one statement, compiled: the rows of both arms at `addressKey` that were built at
 * their tenant's current generation, their body gzipped when `gzip`; none when nothing is kept or
 * what is kept is stale.
 */
export function findServed(
  db: Kysely<ServedTables>,
  addressKey: string,
  gzip: boolean,
): Promise<ServedRead[]> {
  return (gzip ? servedGzipAt : servedHtmlAt).all(db, { addressKey }) as Promise<ServedRead[]>;
}

const generationOf = compiledAcrossTenants((db: Kysely<ServedTables>, p: { tenantId: string }) =>
  db.selectFrom('serving_generations').select('generation').where('tenant_id', '=', p.tenantId),
);

/** The tenant's serving generation now; undefined for a tenant that is no more. */
export async function findGeneration(
  db: Kysely<ServedTables>,
  tenantId: string,
): Promise<number | undefined> {
  return (await generationOf.first(db, { tenantId }))?.generation;
}

/** The tables an address names its tenant by: only what the lookup below reads of them. */
interface AddressTables extends ServedTables {
  tenants: { id: string; slug: string };
  tenant_domains: { tenant_id: string; hostname: string };
}

/** The generation of the tenant that holds a tenant domain, or that has a slug, read with that tenant. */
const generationByHostname = compiledAcrossTenants((db: Kysely<AddressTables>, p: { hostname: string }) =>
  db
    .selectFrom('tenant_domains as d')
    .innerJoin('serving_generations as g', 'g.tenant_id', 'd.tenant_id')
    .select(['g.tenant_id', 'g.generation'])
    .where('d.hostname', '=', p.hostname),
);
const generationBySlug = compiledAcrossTenants((db: Kysely<AddressTables>, p: { slug: string }) =>
  db
    .selectFrom('tenants as t')
    .innerJoin('serving_generations as g', 'g.tenant_id', 't.id')
    .select(['g.tenant_id', 'g.generation'])
    .where('t.slug', '=', p.slug),
);

/** A tenant's serving generation, and the tenant. */
export interface TenantGeneration {
  tenant_id: string;
  generation: number;
}

/**
 * The serving generation of the tenant that an address names (by the tenant domain of its
 * hostname, else by its slug), and that tenant, in one statement: the two are read together, before
 * anything else a page is made from, so that a change of either after this read bumps the
 * generation past the one returned.
 */
export function findGenerationAt(
  db: Kysely<ServedTables>,
  at: { hostname: string } | { slug: string },
): Promise<TenantGeneration | undefined> {
  const across = db as unknown as Kysely<AddressTables>;
  return 'hostname' in at ? generationByHostname.first(across, at) : generationBySlug.first(across, at);
}

/**
 * Keeps `row` for its address and arm, in place of whatever was there (another tenant's, once the
 * address moved), while its generation is still its tenant's current one, and drops the tenant's
 * rows that an earlier generation made: they can never be served again, so the table holds no more
 * than the addresses served since the last change. The generation is read held against changes
 * (`locks.forShare`): a change that bumps it meanwhile waits for this keep to commit, and one that
 * bumped it first is waited for, its generation read, and the row, stale, is not kept. So once a
 * change has committed, no row made before it is kept after it (a person's erasure relies on it).
 */
export async function keepServed(db: Kysely<ServedTables>, locks: Locks, row: ServedRow): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const current = await locks
      .forShare(
        tx.selectFrom('serving_generations').select('generation').where('tenant_id', '=', row.tenant_id),
      )
      .executeTakeFirst();
    if (current === undefined) return;
    const { address_key, arm, ...rest } = row;
    if (current.generation === row.generation) {
      await tx
        .insertInto('served_pages')
        .values(row)
        .onConflict((conflict) => conflict.columns(['address_key', 'arm']).doUpdateSet(rest))
        .execute();
    }
    await tx
      .deleteFrom('served_pages')
      .where('tenant_id', '=', row.tenant_id)
      .where('generation', '<', current.generation)
      .execute();
  });
}

/**
 * Ends every page kept of the tenant, in the caller's transaction: its serving generation moves on,
 * so that no node serves what it read before (each reads the generation before it serves from
 * memory), and its kept rows are deleted, so that nothing rendered before is left in the table.
 * With keepServed's held read, no row rendered before the commit is kept after it.
 */
export async function retireServed(db: TenantDb<ServedTables>): Promise<void> {
  await db
    .updateTable('serving_generations')
    .set((eb) => ({ generation: eb('generation', '+', 1) }))
    .execute();
  await db.deleteFrom('served_pages').execute();
}
