/** Row types of the topics tables. */

export interface TopicsTable {
  id: string;
  tenant_id: string;
  title: string;
  purpose: string;
  sort_order: number;
  /** 1 for the tenant's default topic (at most one per tenant), else 0. */
  is_default: number;
  /** JSON array of the brand ids the topic is for; [] means every brand. */
  brand_ids: string;
  created_at: number;
  updated_at: number;
}

export interface TopicEntriesTable {
  id: string;
  tenant_id: string;
  topic_id: string;
  sort_order: number;
  content_type: 'text' | 'markdown';
  content_text: string;
  created_at: number;
  updated_at: number;
}

export interface TopicsTables {
  topics: TopicsTable;
  topic_entries: TopicEntriesTable;
}
