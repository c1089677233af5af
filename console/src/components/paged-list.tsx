import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Failure, failureOf, type ListPage } from '../api.ts';
import { useInterval } from '../hooks.ts';
import { ProblemMessage } from './problem.tsx';
import { type Column, Table } from './table.tsx';

interface PagedListProps<T> {
  caption: string;
  /** One page of the list from `cursor` on (undefined: the first page), as the API answers it. */
  load: (cursor: string | undefined) => Promise<ListPage<T>>;
  /** The list starts again from its first page when one of these changes (filters, a reload). */
  deps: unknown[];
  columns: Column<T>[];
  rowKey: (item: T) => string;
  /** Said when the list is empty. */
  empty: ComponentChildren;
  /**
   * While this holds for the items shown (something is being generated), the first page is
   * fetched again every few seconds and its items replace their older copies: live progress.
   */
  live?: (items: T[]) => boolean;
}

const LIVE_MS = 2000;

interface Loaded<T> {
  items: T[];
  nextCursor: string | null;
  totalCount: number | null;
}

/**
 * A list the API pages with cursors: the first page, then "Show more" follows `nextCursor` and
 * adds the next page below, so a keyset-paged list is read in order however long it is.
 */
export function PagedList<T>({ caption, load, deps, columns, rowKey, empty, live }: PagedListProps<T>) {
  const [loaded, setLoaded] = useState<Loaded<T> | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [loading, setLoading] = useState(false);
  const generation = useRef(0);

  const fetchPage = async (cursor: string | undefined, previous: T[]) => {
    const call = generation.current;
    setLoading(true);
    try {
      const page = await load(cursor);
      if (call !== generation.current) return;
      setLoaded({
        items: [...previous, ...page.items],
        nextCursor: page.hasMore ? (page.nextCursor ?? null) : null,
        totalCount: page.totalCount ?? null,
      });
      setFailure(null);
    } catch (error) {
      if (call === generation.current) setFailure(failureOf(error));
    } finally {
      if (call === generation.current) setLoading(false);
    }
  };

  useEffect(() => {
    generation.current++;
    void fetchPage(undefined, []);
  }, deps);

  const items = loaded?.items ?? [];
  useInterval(
    async () => {
      const call = generation.current;
      const first = await load(undefined).catch(() => null);
      if (!first || call !== generation.current) return;
      const fresh = new Map(first.items.map((item) => [rowKey(item), item]));
      setLoaded(
        (current) =>
          current && { ...current, items: current.items.map((item) => fresh.get(rowKey(item)) ?? item) },
      );
    },
    LIVE_MS,
    Boolean(live?.(items)),
  );
  return (
    <div aria-busy={loading}>
      <ProblemMessage failure={failure} />
      {loaded && items.length === 0 && !loaded.nextCursor ? (
        <p class="muted">{empty}</p>
      ) : (
        items.length > 0 && <Table caption={caption} columns={columns} items={items} rowKey={rowKey} />
      )}
      {!loaded && loading && <p class="muted">Loading…</p>}
      {/* A search of one or two characters may answer a page with no match yet and more to look at. */}
      {loaded && (items.length > 0 || loaded.nextCursor) && (
        <div class="list-foot">
          <span class="muted" aria-live="polite">
            {loaded.totalCount === null
              ? `Showing ${items.length}`
              : `Showing ${items.length} of ${loaded.totalCount}`}
          </span>
          {loaded.nextCursor && (
            <button
              type="button"
              disabled={loading}
              onClick={() => fetchPage(loaded.nextCursor ?? '', items)}
            >
              {loading ? 'Loading…' : 'Show more'}
            </button>
          )}
        </div>
      )}
    </div>
  );
}
