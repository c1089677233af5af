import type { AudienceCreate } from '@tailor/client';
import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import {
  Checkbox,
  Field,
  outcomeOf,
  Submit,
  SubmitForm,
  TextArea,
  TextInput,
} from '../../components/forms.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useAction, useLoad } from '../../hooks.ts';
import { Link, navigate } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { HoldoutField } from './holdout.tsx';
import { AccountPicker, PersonPicker } from './pickers.tsx';

type For = 'person' | 'account' | 'anyone';

const FOR_CHOICES: { value: For; label: string }[] = [
  { value: 'person', label: 'A person' },
  { value: 'account', label: 'Everyone at a company' },
  { value: 'anyone', label: 'Anyone (a named segment)' },
];

export function NewAudience({ pageId }: { pageId: string }) {
  const { client } = useSession();
  const page = useLoad(
    () => unwrap(client.GET('/v0/pages/{page_id}', { params: { path: { page_id: pageId } } })),
    [pageId],
  );
  const [audienceFor, setAudienceFor] = useState<For>('person');
  const [personId, setPersonId] = useState('');
  const [accountId, setAccountId] = useState('');
  const [customName, setCustomName] = useState('');
  const [supplementaryContext, setContext] = useState('');
  const [holdoutPercent, setHoldout] = useState(0);
  const [autoPublish, setAutoPublish] = useState(false);

  const create = useAction(async () => {
    const body: AudienceCreate = {
      ...(audienceFor === 'person' && personId ? { personId } : {}),
      ...(audienceFor === 'account' && accountId ? { accountId } : {}),
      ...(customName ? { customName } : {}),
      ...(supplementaryContext ? { supplementaryContext } : {}),
      holdoutPercent,
      autoPublish,
    };
    const audience = await unwrap(
      client.POST('/v0/pages/{page_id}/audiences', { params: { path: { page_id: pageId } }, body }),
    );
    navigate(`/pages/${pageId}/audiences/${audience.audienceId}`, { replace: true });
  });
  return (
    <>
      <ViewHead
        title="New audience"
        trail={
          <>
            <Link href="/pages">Pages</Link> ›{' '}
            <Link href={`/pages/${pageId}`}>{page.data?.name ?? pageId}</Link>
          </>
        }
      />
      <ProblemMessage failure={page.failure} />
      <SubmitForm onSubmit={() => void create.run()} {...outcomeOf(create)} operation="createAudience">
        <div class="card">
          <fieldset>
            <legend>Who is it for?</legend>
            {FOR_CHOICES.map((choice) => (
              <div class="check" key={choice.value}>
                <input
                  type="radio"
                  id={`for-${choice.value}`}
                  name="audienceFor"
                  checked={audienceFor === choice.value}
                  onChange={() => setAudienceFor(choice.value)}
                />
                <label for={`for-${choice.value}`}>{choice.label}</label>
              </div>
            ))}
          </fieldset>
          {audienceFor === 'person' && <PersonPicker selected={personId} onSelect={setPersonId} />}
          {audienceFor === 'account' && <AccountPicker selected={accountId} onSelect={setAccountId} />}
        </div>
        <div class="card">
          <Field label="Name" name="customName" hint="Optional: the person and company name it otherwise">
            {(control) => <TextInput {...control} value={customName} onValue={setCustomName} />}
          </Field>
          <Field
            label="What we know about them"
            name="supplementaryContext"
            hint="Private context that guides the personalized version; never shown as written"
          >
            {(control) => <TextArea {...control} value={supplementaryContext} onValue={setContext} />}
          </Field>
          <HoldoutField value={holdoutPercent} onValue={setHoldout} />
          <Checkbox
            label="Publish each generated version as soon as it is ready"
            checked={autoPublish}
            onChecked={setAutoPublish}
          />
        </div>
        <div class="actions">
          <Submit label="Create and generate" pendingLabel="Creating…" />
        </div>
      </SubmitForm>
    </>
  );
}
