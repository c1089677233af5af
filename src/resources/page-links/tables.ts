/** Row types of the page-link table. */

export interface PageLinksTable {
  id: string;
  tenant_id: string;
  /** Lowercased, starting with "/". */
  path: string;
  target_type: 'audience';
  audience_id: string;
  tenant_domain_id: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export type PageLinksTables = {
  page_links: PageLinksTable;
};
