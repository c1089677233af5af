import type { FormSubmission } from '@tailor/client';
import { StatusBadge } from '../../components/format.tsx';
import { NamedLink, type Names } from './names.tsx';

type Failure = NonNullable<FormSubmission['enrichment']['reason']>;

/** Why enrichment failed, in words (docs/forms.md#enrichment). */
const REASONS: Record<Failure, string> = {
  no_email: 'no email address was given',
  invalid_email: 'the email address is not a valid one',
  provider_error: 'the enrichment provider failed on every attempt',
};

/**
 * How enrichment ended: the person found or made (and their company, which a free-mail address has
 * none of), why it failed, or that it is still under way.
 */
export function Outcome({ lead, names }: { lead: FormSubmission; names: Names }) {
  const { state, reason, personId, accountId } = lead.enrichment;
  if (state === 'enriched' && personId)
    return (
      <span>
        <StatusBadge status="enriched" />{' '}
        <NamedLink
          id={personId}
          name={() => names.person(personId)}
          href={`/persons/${personId}`}
          missing="person erased since"
        />
        {accountId ? (
          <>
            {' at '}
            <NamedLink
              id={accountId}
              name={() => names.account(accountId)}
              href={`/accounts/${accountId}`}
              missing="a company since deleted"
            />
          </>
        ) : (
          <span class="muted"> · no company</span>
        )}
      </span>
    );
  if (state === 'failed')
    return (
      <span>
        <StatusBadge status="failed" /> {reason ? REASONS[reason] : 'for a reason not recorded'}
      </span>
    );
  return (
    <span>
      <StatusBadge status="pending" /> <span class="muted">finding who sent it</span>
    </span>
  );
}
