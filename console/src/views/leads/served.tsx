import type { FormSubmission } from '@tailor/client';
import { NamedLink, type Names } from './names.tsx';

/** How each arm reads to a marketer: the page personalized, or the baseline a holdout is shown. */
const ARMS: Record<NonNullable<FormSubmission['arm']>, string> = {
  personalized: 'Personalized',
  baseline: 'Baseline (holdout)',
};

/**
 * What the lead's visitor was served when they sent the form (decisions §6): the arm, and the
 * version, linked to its preview. A lead from before Tailor kept them says what is not known.
 */
export function Served({ lead, names }: { lead: FormSubmission; names: Names }) {
  const { pageId, audienceId, arm, versionId } = lead;
  if (arm === null) return <span class="muted">not recorded</span>;
  return (
    <span>
      {ARMS[arm]} ·{' '}
      {versionId === null ? (
        <span class="muted">version not recorded</span>
      ) : (
        <NamedLink
          id={versionId}
          name={() => names.version(pageId, audienceId, versionId)}
          href={`/pages/${pageId}/audiences/${audienceId}/versions/${versionId}`}
          missing="a version since removed"
        />
      )}
    </span>
  );
}
