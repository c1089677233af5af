import {
  type DeleteQueryBuilder,
  type DeleteResult,
  type Insertable,
  type InsertQueryBuilder,
  type InsertResult,
  type Kysely,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
  type UpdateQueryBuilder,
  type UpdateResult,
} from 'kysely';
import type { Dialect } from './dialect.ts';
import type { DB, TenantTable } from './schema.ts';

export type TenantInsert<T extends TenantTable> = Omit<Insertable<DB[T]>, 'tenant_id'>;

/**
 * The only way services reach tenant-owned tables. Every statement it starts is already limited
 * to one tenant (reads, updates and deletes filter on `tenant_id`; inserts set it), so a store
 * cannot forget the tenant: it never sees an unscoped query builder.
 */
export class TenantDb {
  constructor(
    readonly tenantId: string,
    private readonly db: Kysely<DB>,
    readonly dialect: Dialect,
  ) {}

  private ownedBy(table: string) {
    return sql<SqlBool>`${sql.ref(`${table}.tenant_id`)} = ${this.tenantId}`;
  }

  selectFrom<T extends TenantTable>(table: T): SelectQueryBuilder<DB, T, object> {
    return (this.db.selectFrom(table) as unknown as SelectQueryBuilder<DB, T, object>).where(
      this.ownedBy(table),
    );
  }

  updateTable<T extends TenantTable>(table: T): UpdateQueryBuilder<DB, T, T, UpdateResult> {
    return (this.db.updateTable(table) as unknown as UpdateQueryBuilder<DB, T, T, UpdateResult>).where(
      this.ownedBy(table),
    );
  }

  deleteFrom<T extends TenantTable>(table: T): DeleteQueryBuilder<DB, T, DeleteResult> {
    return (this.db.deleteFrom(table) as unknown as DeleteQueryBuilder<DB, T, DeleteResult>).where(
      this.ownedBy(table),
    );
  }

  insertInto<T extends TenantTable>(
    table: T,
    rows: TenantInsert<T> | TenantInsert<T>[],
  ): InsertQueryBuilder<DB, T, InsertResult> {
    const owned = (Array.isArray(rows) ? rows : [rows]).map((row) => ({ ...row, tenant_id: this.tenantId }));
    return this.db.insertInto(table).values(owned as unknown as Insertable<DB[T]>[]);
  }

  /**
   * How many rows a query started here selects; with `cap`, counting stops past `cap` rows (the
   * answer is then `cap + 1`), so that a count over a huge match stays cheap.
   */
  async countRows<T extends TenantTable>(
    query: SelectQueryBuilder<DB, T, object>,
    cap?: number,
  ): Promise<number> {
    const rows = query
      .select(sql<number>`1`.as('one'))
      .$if(cap !== undefined, (q) => q.limit((cap ?? 0) + 1));
    const result = await this.db
      .selectFrom(rows.as('counted'))
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(result.n);
  }

  /** The tenant's number of rows in a table that keeps a counter (see migration 0010). */
  async rowCount(table: 'accounts' | 'persons'): Promise<number> {
    const row = await this.selectFrom('tenant_row_counts')
      .select('n')
      .where('name', '=', table)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Runs `work` in one transaction; inside another transaction it joins that one. */
  transaction<R>(work: (tx: TenantDb) => Promise<R>): Promise<R> {
    if (this.db.isTransaction) return work(this);
    return this.db.transaction().execute((trx) => work(new TenantDb(this.tenantId, trx, this.dialect)));
  }
}
