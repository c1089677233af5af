import { type Audience, type Page, paginate } from '@tailor/client';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { type Failure, failureOf, type TailorClient, unwrap } from '../../api.ts';
import { useSession } from '../../session.tsx';

/** An audience with the page it belongs to. */
export interface PageAudience {
  audience: Audience;
  page: Page;
}

/** Pages read in one round: one page of GET /v0/pages. */
const PAGES_PER_ROUND = 100;
/** Audience lists asked for at once, well under a key's rate limit. */
const AT_ONCE = 4;
/** Rounds read on their own to find the audiences sought; past them, on demand (`readMore`). */
const SEEK_ROUNDS = 5;

/**
 * The tenant's audiences with their pages, read across pages. The API lists audiences per page only
 * (`GET /v0/pages/{page_id}/audiences`) and answers no audience by its id alone, so a view that needs
 * audiences of any page (those made for a person, those a list of links serves) reads the pages, newest
 * first, a round of 100 at a time, and the audiences of each page that has any (archived ones too).
 * Pages without a live audience, and deleted pages, are not read.
 */
export class AudienceDirectory {
  /** Every audience read so far, by id. */
  readonly found = new Map<string, PageAudience>();
  pagesRead = 0;
  /** Rounds read so far. */
  rounds = 0;
  /** Pages remain to be read. */
  more = true;
  reading = false;
  failure: Failure | null = null;
  private cursor: string | undefined;
  private readonly sought = new Set<string>();
  private roundsSeeking = 0;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly client: TailorClient) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Audiences sought (`seek`) that the pages read so far did not hold. */
  get missing(): number {
    return [...this.sought].filter((id) => !this.found.has(id)).length;
  }

  /** Reads the next round of pages and their audiences. */
  async readMore(): Promise<void> {
    if (this.reading || !this.more) return;
    this.reading = true;
    this.changed();
    try {
      const pages = await unwrap(
        this.client.GET('/v0/pages', { params: { query: { limit: PAGES_PER_ROUND, cursor: this.cursor } } }),
      );
      const withAudiences = pages.items.filter((page) => page.audiencesCount > 0);
      for (let at = 0; at < withAudiences.length; at += AT_ONCE) {
        await Promise.all(withAudiences.slice(at, at + AT_ONCE).map((page) => this.readAudiences(page)));
      }
      this.pagesRead += pages.items.length;
      this.rounds++;
      this.cursor = pages.nextCursor ?? undefined;
      this.more = pages.hasMore;
      this.failure = null;
    } catch (error) {
      this.failure = failureOf(error);
    } finally {
      this.reading = false;
      this.changed();
    }
    this.seekOn();
  }

  /** Reads on, a few rounds at most, until the audience `audienceId` is found. */
  seek(audienceId: string): void {
    if (this.found.has(audienceId) || this.sought.has(audienceId)) return;
    this.sought.add(audienceId);
    this.roundsSeeking = 0;
    this.seekOn();
  }

  private seekOn(): void {
    if (this.missing === 0 || this.reading || !this.more || this.failure) return;
    if (this.roundsSeeking >= SEEK_ROUNDS) return;
    this.roundsSeeking++;
    void this.readMore();
  }

  private async readAudiences(page: Page): Promise<void> {
    const audiences = paginate(this.client, '/v0/pages/{page_id}/audiences', {
      params: { path: { page_id: page.pageId }, query: { limit: 100 } },
    });
    for await (const audience of audiences) this.found.set(audience.audienceId, { audience, page });
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** A directory for this view, read anew when `deps` change; the view renders again as it fills. */
export function useAudienceDirectory(deps: unknown[]): AudienceDirectory {
  const { client } = useSession();
  const directory = useMemo(() => new AudienceDirectory(client), [client, ...deps]);
  const [, setChanges] = useState(0);
  useEffect(() => directory.subscribe(() => setChanges((count) => count + 1)), [directory]);
  return directory;
}
