import type { Failure } from '../api.ts';

/**
 * A failed request as the API explained it: the problem's `title` and `detail` (which names every
 * field error too; forms also show each beside its field, components/forms.tsx).
 */
export function ProblemMessage({ failure }: { failure: Failure | null }) {
  if (!failure) return null;
  return (
    <div class="problem" role="alert">
      <p>
        <strong>{failure.title}</strong>
        {failure.detail && <span>: {failure.detail}</span>}
      </p>
    </div>
  );
}
