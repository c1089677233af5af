import type { ColumnType } from 'kysely';

/** Written by the database alone (migration 0011): never inserted or updated by code. */
type Derived<T> = ColumnType<T, never, never>;

/** Row types of the accounts table. */
export interface AccountsTable {
  id: string;
  tenant_id: string;
  domain: string;
  name: string | null;
  created_at: number;
  updated_at: number;
  /** How many persons are linked to the account. */
  linked_persons_count: Derived<number>;
  /** The latest activity of any linked person. */
  latest_activity_at: Derived<number | null>;
}

export interface AccountsTables {
  accounts: AccountsTable;
}
