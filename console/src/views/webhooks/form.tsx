import type { EventKind, WebhookSubscription, WebhookSubscriptionCreate } from '@tailor/client';
import { useId, useState } from 'preact/hooks';
import type { Failure } from '../../api.ts';
import { CopyField } from '../../components/copy.tsx';
import { Checkbox, Field, FieldMessage, Submit, SubmitForm, TextInput } from '../../components/forms.tsx';
import type { OperationId } from '../../operation-schemas.ts';

/** Every event kind a subscription can select, with what it tells (docs/webhooks.md). */
const EVENT_KINDS: Record<EventKind, string> = {
  'page.version.created': 'a version is queued for generation',
  'page.version.processed': 'a version is generated (a draft)',
  'page.version.published': 'a version is published',
  'form.submitted': "a visitor sends a page's form",
  'form.enriched': 'a form submission is matched to a person and company',
  'form.enrichment_failed': 'a form submission could not be matched',
};
const KINDS = Object.keys(EVENT_KINDS) as EventKind[];

/** The kinds an answer's `events` selects, said in words. */
export function describeEvents(events: EventKind[] | null): string {
  if (events === null) return 'every kind';
  if (events.length === 0) return 'none';
  return events.join(', ');
}

/** What the form edits: `events` null is every kind, now and to come. */
export type SubscriptionDraft = Required<WebhookSubscriptionCreate>;

export const NEW_SUBSCRIPTION: SubscriptionDraft = { url: '', events: null, active: true };

export function draftOf({ url, events, active }: WebhookSubscription): SubscriptionDraft {
  return { url, events, active };
}

interface SubscriptionFormProps {
  initial: SubscriptionDraft;
  /** createWebhookSubscription or updateWebhookSubscription: the fields state its rules. */
  operation: OperationId;
  submitLabel: string;
  failure: Failure | null;
  pending: boolean;
  onSubmit: (draft: SubscriptionDraft) => void;
}

export function SubscriptionForm({
  initial,
  operation,
  submitLabel,
  failure,
  pending,
  onSubmit,
}: SubscriptionFormProps) {
  const [draft, setDraft] = useState(initial);
  const name = useId();
  const chosen = draft.events ?? [];
  const toggle = (kind: EventKind, on: boolean) =>
    setDraft({ ...draft, events: KINDS.filter((each) => (each === kind ? on : chosen.includes(each))) });
  return (
    <SubmitForm onSubmit={() => onSubmit(draft)} problem={failure} pending={pending} operation={operation}>
      <Field label="Receiver URL" name="url" hint="Where events are POSTed">
        {(control) => (
          <TextInput
            {...control}
            type="url"
            required
            spellcheck={false}
            value={draft.url}
            onValue={(url) => setDraft({ ...draft, url })}
          />
        )}
      </Field>
      <fieldset>
        <legend>Events to send</legend>
        <div class="check">
          <input
            type="radio"
            id={`${name}-all`}
            name={name}
            checked={draft.events === null}
            onChange={() => setDraft({ ...draft, events: null })}
          />
          <label for={`${name}-all`}>Every kind, including kinds added later</label>
        </div>
        <div class="check">
          <input
            type="radio"
            id={`${name}-some`}
            name={name}
            checked={draft.events !== null}
            onChange={() => setDraft({ ...draft, events: chosen })}
          />
          <label for={`${name}-some`}>Only these:</label>
        </div>
        {draft.events !== null && (
          <div class="indented">
            {KINDS.map((kind) => (
              <Checkbox
                key={kind}
                label={kind}
                hint={EVENT_KINDS[kind]}
                checked={chosen.includes(kind)}
                onChecked={(on) => toggle(kind, on)}
              />
            ))}
          </div>
        )}
        {/* An error may name the list or one of its items (/body/events/2). */}
        <FieldMessage name="events" nested />
      </fieldset>
      <Checkbox
        label="Active"
        hint="only an active subscription receives events"
        checked={draft.active}
        onChecked={(active) => setDraft({ ...draft, active })}
      />
      <div class="actions">
        <Submit label={submitLabel} pendingLabel="Saving…" />
      </div>
    </SubmitForm>
  );
}

/** A signing secret, which the API shows only in the answer that made it. */
export function SecretOnce({ secret, onDone }: { secret: string; onDone: () => void }) {
  return (
    <div class="notice secret" role="status">
      <p>
        <strong>The signing secret, shown this once.</strong> Copy it to your receiver now: it verifies that
        each delivery comes from Tailor (docs/webhooks.md, Verifying signatures), and it cannot be read again.
      </p>
      <CopyField label="Signing secret" value={secret} />
      <button type="button" onClick={onDone}>
        I have kept it
      </button>
    </div>
  );
}
