import type { Person, PersonCreate, PersonUpdate } from '@tailor/client';
import { useState } from 'preact/hooks';
import type { Failure } from '../../api.ts';
import { Field, Submit, SubmitForm, TextInput } from '../../components/forms.tsx';
import type { OperationId } from '../../operation-schemas.ts';

/**
 * What the form edits: every field a person is created with, as text ("" for none). Made from the
 * client's `PersonCreate`, so a field the API gains makes `tsc` point at the drafts below.
 */
export type PersonDraft = { [Field in keyof PersonCreate]-?: string };

type Optional = Exclude<keyof PersonDraft, 'name'>;
const OPTIONAL_FIELDS: Record<Optional, true> = {
  email: true,
  domain: true,
  phoneNumber: true,
  linkedinProfileUrl: true,
};
// Object.keys widens to string[]; the record above holds exactly the optional fields.
const OPTIONAL = Object.keys(OPTIONAL_FIELDS) as Optional[];

export const NEW_PERSON: PersonDraft = {
  name: '',
  email: '',
  domain: '',
  phoneNumber: '',
  linkedinProfileUrl: '',
};

export function draftOf(person: Person): PersonDraft {
  return {
    name: person.name,
    email: person.email ?? '',
    domain: person.domain ?? '',
    phoneNumber: person.phoneNumber ?? '',
    linkedinProfileUrl: person.linkedinProfileUrl ?? '',
  };
}

/** POST /v0/persons: the fields filled in. */
export function createBody(draft: PersonDraft): PersonCreate {
  const body: PersonCreate = { name: draft.name.trim() };
  for (const field of OPTIONAL) if (draft[field].trim()) body[field] = draft[field].trim();
  return body;
}

/** PATCH /v0/persons/{id}: the fields changed; one emptied is cleared (null). */
export function updateBody(draft: PersonDraft, person: Person): PersonUpdate {
  const was = draftOf(person);
  const body: PersonUpdate = {};
  if (draft.name.trim() !== was.name) body.name = draft.name.trim();
  for (const field of OPTIONAL) {
    const value = draft[field].trim();
    if (value !== was[field]) body[field] = value || null;
  }
  return body;
}

interface PersonFormProps {
  initial: PersonDraft;
  /** createPerson or updatePerson: the fields state its rules. */
  operation: OperationId;
  submitLabel: string;
  failure: Failure | null;
  pending: boolean;
  onSubmit: (draft: PersonDraft) => void;
}

export function PersonForm({ initial, operation, submitLabel, failure, pending, onSubmit }: PersonFormProps) {
  const [draft, setDraft] = useState(initial);
  const set = (field: keyof PersonDraft) => (value: string) => setDraft({ ...draft, [field]: value });
  return (
    <SubmitForm onSubmit={() => onSubmit(draft)} problem={failure} pending={pending} operation={operation}>
      <div class="card">
        <div class="row">
          <Field label="Name" name="name">
            {(control) => <TextInput {...control} required value={draft.name} onValue={set('name')} />}
          </Field>
          <Field label="Email" name="email" hint="Unique among your persons">
            {(control) => (
              <TextInput
                {...control}
                type="email"
                autocomplete="off"
                value={draft.email}
                onValue={set('email')}
              />
            )}
          </Field>
        </div>
        <div class="row">
          <Field
            label="Company domain"
            name="domain"
            hint="Links the person to that company; empty: the email's domain"
          >
            {(control) => (
              <TextInput {...control} spellcheck={false} value={draft.domain} onValue={set('domain')} />
            )}
          </Field>
          <Field label="Phone number" name="phoneNumber">
            {(control) => (
              <TextInput {...control} type="tel" value={draft.phoneNumber} onValue={set('phoneNumber')} />
            )}
          </Field>
        </div>
        <Field label="LinkedIn profile" name="linkedinProfileUrl">
          {(control) => (
            <TextInput
              {...control}
              type="url"
              value={draft.linkedinProfileUrl}
              onValue={set('linkedinProfileUrl')}
            />
          )}
        </Field>
      </div>
      <div class="actions">
        <Submit label={submitLabel} pendingLabel="Saving…" />
      </div>
    </SubmitForm>
  );
}
