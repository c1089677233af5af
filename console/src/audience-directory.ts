import type { Audience, Page } from '@tailor/client';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { type Failure, failureOf, type TailorClient, unwrap } from './api.ts';
import { useSession } from './session.tsx';

/** An audience with the page it belongs to. */
export interface PageAudience {
  audience: Audience;
  page: Page;
}

/** Audiences read in one round: one page of GET /v0/audiences. */
const AUDIENCES_PER_ROUND = 100;
/** Pages asked for at once, well under a key's rate limit. */
const AT_ONCE = 4;
/** Rounds read on their own to find the audiences sought; past them, on demand (`readMore`). */
const SEEK_ROUNDS = 5;

/**
 * Audiences with their pages, read across pages from `GET /v0/audiences`, newest first (only those
 * made for one person when `personId` is given), a round of 100 at a time, each page they belong to
 * read once. The API answers no audience by its id alone, so a view that names the audiences a list
 * of links serves reads on (`seek`), a few rounds by itself, until it has found them. An audience
 * whose page was deleted is not shown.
 */
export class AudienceDirectory {
  /** Every audience read so far, by id. */
  readonly found = new Map<string, PageAudience>();
  audiencesRead = 0;
  /** Rounds read so far. */
  rounds = 0;
  /** Audiences remain to be read. */
  more = true;
  reading = false;
  failure: Failure | null = null;
  private cursor: string | undefined;
  private readonly pages = new Map<string, Page | null>();
  private readonly sought = new Set<string>();
  private roundsSeeking = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly client: TailorClient,
    private readonly filter: { personId?: string } = {},
  ) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Audiences sought (`seek`) that the pages read so far did not hold. */
  get missing(): number {
    return [...this.sought].filter((id) => !this.found.has(id)).length;
  }

  /** Reads the next round of audiences and their pages. */
  async readMore(): Promise<void> {
    if (this.reading || !this.more) return;
    this.reading = true;
    this.changed();
    try {
      const audiences = await unwrap(
        this.client.GET('/v0/audiences', {
          params: { query: { limit: AUDIENCES_PER_ROUND, cursor: this.cursor, ...this.filter } },
        }),
      );
      await this.readPages(audiences.items.map((audience) => audience.pageId));
      for (const audience of audiences.items) {
        const page = this.pages.get(audience.pageId);
        if (page) this.found.set(audience.audienceId, { audience, page });
      }
      this.audiencesRead += audiences.items.length;
      this.rounds++;
      this.cursor = audiences.nextCursor ?? undefined;
      this.more = audiences.hasMore;
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

  /** Reads the pages not read yet; a deleted page is kept as null. */
  private async readPages(ids: string[]): Promise<void> {
    const unread = [...new Set(ids)].filter((id) => !this.pages.has(id));
    for (let at = 0; at < unread.length; at += AT_ONCE) {
      await Promise.all(unread.slice(at, at + AT_ONCE).map((id) => this.readPage(id)));
    }
  }

  private async readPage(pageId: string): Promise<void> {
    const answer = await this.client.GET('/v0/pages/{page_id}', { params: { path: { page_id: pageId } } });
    if (answer.response.status === 404) this.pages.set(pageId, null);
    else this.pages.set(pageId, await unwrap(answer));
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** A directory for this view, read anew when `deps` change; the view renders again as it fills. */
export function useAudienceDirectory(deps: unknown[], filter: { personId?: string } = {}): AudienceDirectory {
  const { client } = useSession();
  const directory = useMemo(() => new AudienceDirectory(client, filter), [client, ...deps]);
  const [, setChanges] = useState(0);
  useEffect(() => directory.subscribe(() => setChanges((count) => count + 1)), [directory]);
  return directory;
}
