import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.ts';
import * as foundation from './0001_foundation.ts';
import * as pages from './0002_pages.ts';
import * as topics from './0003_topics.ts';
import * as filesAndAssets from './0004_files_and_assets.ts';
import * as jobs from './0005_jobs.ts';
import * as audiences from './0006_audiences.ts';
import * as webhooks from './0007_webhooks.ts';
import * as pageLinks from './0008_page_links.ts';
import * as visitors from './0009_visitors.ts';
import * as rowCounts from './0010_row_counts.ts';

type Step = { up(db: Kysely<unknown>, dialect: Dialect): Promise<void> };

// Append only: a migration that has run somewhere is never edited, only followed by another.
const steps: Record<string, Step> = {
  '0001_foundation': foundation,
  '0002_pages': pages,
  '0003_topics': topics,
  '0004_files_and_assets': filesAndAssets,
  '0005_jobs': jobs,
  '0006_audiences': audiences,
  '0007_webhooks': webhooks,
  '0008_page_links': pageLinks,
  '0009_visitors': visitors,
  '0010_row_counts': rowCounts,
};

export function migrationsFor(dialect: Dialect): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(steps).map(([name, step]) => [
      name,
      { up: (db: Kysely<unknown>) => step.up(db, dialect) },
    ]),
  );
}
