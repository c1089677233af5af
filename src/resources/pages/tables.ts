import type { ColumnType } from 'kysely';
import type { PageStatus, PageType } from './schema.ts';

/** Row types of the pages table. */

export interface PagesTable {
  id: string;
  tenant_id: string;
  name: string;
  title: string;
  page_context: string;
  page_type: PageType;
  status: PageStatus;
  brand_id: string;
  /** JSON arrays and objects, as the API shows them. */
  actions: string;
  action_card_widgets: string;
  scripts: string;
  footer_links: string | null;
  header_action_id: string | null;
  metadata: string | null;
  created_at: number;
  updated_at: number;
  archived_at: number | null;
  deleted_at: number | null;
  /** The page's audiences that are not archived; kept by the database alone (migration 0011). */
  audiences_count: ColumnType<number, never, never>;
}

export type PagesTables = {
  pages: PagesTable;
};
