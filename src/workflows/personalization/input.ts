import type { PageMetadata } from '../../http/page-metadata.ts';
import type { VersionContent } from '../../resources/audiences/schema.ts';
import type { Brand } from '../../resources/brands/schema.ts';
import type { Page } from '../../resources/pages/schema.ts';
import type { Topic } from '../../resources/topics/schema.ts';

/**
 * Everything a personalizer may draw on for one version, gathered by the generation job. The
 * `private` texts guide it (what to stress, what a conversation was about) but are never page copy;
 * `foreign` is what other brands own, which a page of this brand must never show.
 */
export interface PersonalizationInput {
  page: Page;
  /** The profile of the page's brand; undefined when the brand id has none. */
  brand: Brand | undefined;
  audience: {
    /** Chooses among phrasings, so that one page's audiences do not all read alike. */
    id: string;
    actionUrlOverride: string | null;
    metadata: PageMetadata | undefined;
  };
  /** The version being written, so that it is an alternative to the one before it. */
  version: {
    /** 0 for the audience's first generated version, one more for each version after it. */
    variant: number;
    /** The content of the audience's version before this one (edited or not); null when there is none. */
    previous: VersionContent | null;
  };
  /** Who the audience is: a person (with their account when known), an account, or anyone. */
  person: { name: string } | null;
  account: { name: string | null; domain: string } | null;
  /** The topics the page's brand may draw on, in list order. */
  topics: Topic[];
  private: {
    /** The audience's supplementary context. */
    context: string;
    /** The person's log entries by users and by Tailor, newest first; never what a visitor wrote. */
    notes: string[];
  };
  foreign: {
    topics: Topic[];
    brandNames: string[];
  };
}
