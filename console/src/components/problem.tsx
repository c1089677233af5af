import type { Failure } from '../api.ts';
import { WithIdLinks } from './id-link.tsx';

/** A field error, in the API's words. */
type FieldError = NonNullable<Failure['errors']>[number];

/**
 * What went wrong, in words: a problem's detail, whose ids of existing things are links to them
 * (a conflict names what holds the email or the path), after its title unless the detail says it
 * all (a conflict, a state that forbids the action).
 */
export function ProblemText({ failure }: { failure: Failure }) {
  const detailOnly = failure.code === 'conflict' || failure.code === 'invalid_state';
  return (
    <>
      {!detailOnly && <strong>{failure.title}</strong>}
      {failure.detail && (
        <span>
          {!detailOnly && ': '}
          <WithIdLinks text={failure.detail} />
        </span>
      )}
    </>
  );
}

/** "/body/actions/0/url" as a reader of the form names it: "actions/0/url". */
function fieldOf(error: FieldError): string {
  return error.path.replace(/^\/body\//, '');
}

/** Field errors that no field of the form shows, each with the field it names. */
function OtherErrors({ errors }: { errors: FieldError[] }) {
  return (
    <ul>
      {errors.map((error) => (
        <li key={`${error.path} ${error.message}`}>
          <code>{fieldOf(error)}</code> {error.message}
        </li>
      ))}
    </ul>
  );
}

interface ProblemMessageProps {
  failure: Failure | null;
  /**
   * In a form: whether a field of the form shows the error at this pointer beside it. The message
   * then lists only the others, and says how many fields are marked.
   */
  isShown?: (path: string) => boolean;
}

/**
 * A failed request as the API explained it: its title and detail. In a form whose fields show their
 * errors (`isShown`), it lists the errors that none shows, in the same words.
 */
export function ProblemMessage({ failure, isShown }: ProblemMessageProps) {
  if (!failure) return null;
  const errors = failure.errors ?? [];
  if (!isShown || errors.length === 0) {
    return (
      <div class="problem" role="alert">
        <p>
          <ProblemText failure={failure} />
        </p>
      </div>
    );
  }
  const others = errors.filter((error) => !isShown(error.path));
  return (
    <div class="problem" role="alert">
      <p>
        <strong>Not saved.</strong> Correct {others.length === 1 ? 'this' : 'these'}
        {others.length < errors.length && ', and the fields marked below'}:
      </p>
      <OtherErrors errors={others} />
    </div>
  );
}
