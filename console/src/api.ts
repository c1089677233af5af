import { createTailorClient, type Problem, type TailorClient, TailorProblem } from '@tailor/client';
import { type FieldError, invalidFields } from '../../src/shared/errors.ts';
import { errorsBeforeSending } from './operation-schemas.ts';

export { unwrap } from '@tailor/client';
export type { TailorClient };

/**
 * What went wrong with a request, as the console shows it: the API's problem, a request the console
 * did not send, or a network failure.
 */
export type Failure = Pick<Problem, 'title' | 'detail'> &
  Partial<Pick<Problem, 'status' | 'code' | 'errors'>>;

/** A request the console did not send, with why: the API's schema refuses it, or it is no longer wanted. */
export class NotSent extends Error {
  constructor(readonly failure: Failure) {
    super(failure.detail);
  }
}

/** The API's refusal of a request with these field errors, word for word (src/shared/errors.ts). */
function refusalOf(errors: FieldError[]): Failure {
  const refusal = invalidFields(errors);
  return { title: 'Validation failed', code: refusal.code, detail: refusal.message, errors };
}

/** A JSON body as it is about to be sent; undefined for none, or another kind (an upload's bytes). */
async function jsonBodyOf(request: Request): Promise<unknown> {
  if (!request.headers.get('content-type')?.startsWith('application/json')) return undefined;
  const text = await request.clone().text();
  return text ? JSON.parse(text) : undefined;
}

/**
 * The client's check before each request: its path and query parameters and its JSON body against
 * the schemas the API advertises for it (operation-schemas.ts). A request the API would refuse is not
 * sent: NotSent, whose errors a form shows beside its fields as it would the API's. (An upload's
 * bytes are checked when the file is chosen: components/forms.tsx, FileField.)
 */
const checkBeforeSending: Parameters<TailorClient['use']>[0] = {
  async onRequest({ request, schemaPath, params }) {
    const errors = await errorsBeforeSending(request.method, schemaPath, {
      params: params.path,
      querystring: params.query,
      body: await jsonBodyOf(request),
    });
    if (errors.length > 0) throw new NotSent(refusalOf(errors));
    return undefined;
  },
};

/**
 * The typed client for this server, as `apiKey`: the console is a client of the public API, and
 * sends it nothing its schemas refuse (operation-schemas.ts).
 */
export function clientFor(apiKey: string): TailorClient {
  const client = createTailorClient({ baseUrl: location.origin, apiKey });
  client.use(checkBeforeSending);
  return client;
}

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
