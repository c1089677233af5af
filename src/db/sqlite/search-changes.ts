import type BetterSqlite3 from 'better-sqlite3';

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

/**
 * The search indexes' staged changes (migration 0030): the triggers of each searchable table stage
 * what its FTS5 index is to add and delete, and `apply` writes it all into the indexes at once, one
 * segment per index instead of one per unit of work. Before 0030 has run (a database being
 * migrated) there is nothing to apply; whether there is is looked up again when the schema changes.
 */
export class SearchChanges {
  private schemaVersion: number | undefined;
  /** Whether the database stages search changes (0030 has run). */
  private present = false;

  constructor(private readonly statement: (sql: string) => Statement) {}

  apply(): void {
    const { schema_version: version } = this.statement('PRAGMA schema_version').get() as {
      schema_version: number;
    };
    if (version !== this.schemaVersion) {
      this.schemaVersion = version;
      this.present =
        this.statement(
          `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'search_changes_applied'`,
        ).get() !== undefined;
    }
    if (this.present) this.statement('INSERT INTO search_changes_applied DEFAULT VALUES').run();
  }
}
