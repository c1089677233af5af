import type { Kysely, Selectable } from 'kysely';
import { compiledAcrossTenants } from '../../db/compiled.ts';
import type { Arm } from '../../resources/sessions/arm.ts';

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

/** What a page view reads of a kept row. */
export type ServedRead = Pick<
  ServedRow,
  'arm' | 'audience_id' | 'holdout_percent' | 'html' | 'gzip' | 'etag' | 'token_expires_at'
>;

const servedAt = compiledAcrossTenants((db: Kysely<ServedTables>, p: { addressKey: string }) =>
  db
    .selectFrom('served_pages as s')
    .innerJoin('serving_generations as g', (join) =>
      join.onRef('g.tenant_id', '=', 's.tenant_id').onRef('g.generation', '=', 's.generation'),
    )
    .select([
      's.arm',
      's.audience_id',
      's.holdout_percent',
      's.html',
      's.gzip',
      's.etag',
      's.token_expires_at',
    ])
    .where('s.address_key', '=', p.addressKey),
);

/**
 * The page view's one statement, compiled: the rows of both arms at `addressKey` that were built at
 * their tenant's current generation; none when nothing is kept or what is kept is stale.
 */
export function findServed(db: Kysely<ServedTables>, addressKey: string): Promise<ServedRead[]> {
  return servedAt.all(db, { addressKey });
}

export async function findGeneration(
  db: Kysely<ServedTables>,
  tenantId: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('serving_generations')
    .select('generation')
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row?.generation;
}

/**
 * Keeps `row` for its address and arm, in place of whatever was there (another tenant's, once the
 * address moved), and drops the tenant's rows that an earlier generation made: they can never be
 * served again, so the table holds no more than the addresses served since the last change.
 */
export async function keepServed(db: Kysely<ServedTables>, row: ServedRow): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const { address_key, arm, ...rest } = row;
    await tx
      .insertInto('served_pages')
      .values(row)
      .onConflict((conflict) => conflict.columns(['address_key', 'arm']).doUpdateSet(rest))
      .execute();
    await tx
      .deleteFrom('served_pages')
      .where('tenant_id', '=', row.tenant_id)
      .where('generation', '<', row.generation)
      .execute();
  });
}
