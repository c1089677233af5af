import { createTailorClient, type Problem, type TailorClient, TailorProblem } from '@tailor/client';
import { NotSent } from './advertised.ts';

export { unwrap } from '@tailor/client';
export type { TailorClient };

/** The typed client for this server, as `apiKey`: the console is a client of the public API. */
export function clientFor(apiKey: string): TailorClient {
  return createTailorClient({ baseUrl: location.origin, apiKey });
}

/** What went wrong with a request, as the console shows it: the API's problem, or a network failure. */
export type Failure = Pick<Problem, 'title' | 'detail'> &
  Partial<Pick<Problem, 'status' | 'code' | 'errors'>>;

export function failureOf(error: unknown): Failure {
  if (error instanceof TailorProblem) return error.problem;
  if (error instanceof NotSent) return error.failure;
  return {
    title: 'No answer from the server',
    detail: error instanceof Error ? error.message : String(error),
  };
}

/** The API's message for one body field (`name`, `actions/0/buttonTitle`), if it named that field. */
export function fieldError(failure: Failure | null | undefined, field: string): string | undefined {
  return failure?.errors?.find((error) => error.path === `/body/${field}`)?.message;
}

/** The shape every paged list of the API answers (docs/api.md, Lists). */
export interface ListPage<T> {
  items: T[];
  hasMore: boolean;
  nextCursor?: string | null;
  totalCount?: number | null;
}
