import type { FetchOptions } from 'openapi-fetch';
import type { TailorClient } from './client.js';
import { failure } from './problem.js';
import type { paths } from './schema.js';

interface ListPage {
  items: unknown[];
  nextCursor: string | null;
}

/** The paths whose GET answers a page of a list and takes a `cursor`. */
export type ListPath = {
  [P in keyof paths]: paths[P] extends {
    get: {
      parameters: { query?: { cursor?: string } };
      responses: { 200: { content: { 'application/json': ListPage } } };
    };
  }
    ? P
    : never;
}[keyof paths];

type ListOperation<P extends ListPath> = paths[P]['get'];

/** An item of the list at `P`. */
export type ListItem<P extends ListPath> =
  ListOperation<P>['responses'][200]['content']['application/json']['items'][number];

/**
 * Every item of the list at `path`, page after page: `init` is what `client.GET(path, init)` takes
 * (path parameters, filters, `limit` as the page size), and each next page is asked for with the
 * previous page's `nextCursor` until there is none. A failed page throws like `unwrap`.
 */
export async function* paginate<P extends ListPath>(
  client: TailorClient,
  path: P,
  init: FetchOptions<ListOperation<P>>,
): AsyncGenerator<ListItem<P>, void, undefined> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await client.GET(path, {
      ...init,
      params: { ...init.params, query: { ...init.params?.query, cursor } },
    });
    if (!data) throw failure(error, response);
    yield* data.items;
    cursor = data.nextCursor ?? undefined;
  } while (cursor);
}
