import type { Account } from '@tailor/client';
import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { Time } from '../../components/format.tsx';
import { Field, outcomeOf, Submit, SubmitForm, TextInput } from '../../components/forms.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { Table } from '../../components/table.tsx';
import { useAction, useLoad } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession, Writable } from '../../session.tsx';

export function AccountDetail({ accountId }: { accountId: string }) {
  const { client } = useSession();
  const account = useLoad(
    () => unwrap(client.GET('/v0/accounts/{account_id}', { params: { path: { account_id: accountId } } })),
    [accountId],
  );
  const data = account.data;
  return (
    <>
      <ViewHead
        title={data ? (data.name ?? data.domain) : 'Account'}
        trail={<Link href="/accounts">Accounts</Link>}
      />
      <ProblemMessage failure={account.failure} />
      {data && (
        <>
          <div class="card">
            <dl class="facts">
              <div>
                <dt>Domain</dt>
                <dd>{data.domain}</dd>
              </div>
              <div>
                <dt>Latest activity</dt>
                <dd>
                  <Time at={data.latestActivityAt} />
                </dd>
              </div>
              <div>
                <dt>Created</dt>
                <dd>
                  <Time at={data.createdAt} />
                </dd>
              </div>
            </dl>
          </div>
          <Writable>
            <RenameForm account={data} onSaved={account.set} />
          </Writable>
          <section aria-labelledby="persons-heading">
            <h2 id="persons-heading">Persons</h2>
            <p class="muted">
              A person belongs to the account of their company domain. The 100 most recently updated:
            </p>
            {data.linkedPersons.length === 0 ? (
              <p class="muted">No person at this company yet.</p>
            ) : (
              <Table
                caption="Persons of this account"
                items={data.linkedPersons}
                rowKey={(person) => person.personId}
                columns={[
                  {
                    label: 'Name',
                    cell: (person) => <Link href={`/persons/${person.personId}`}>{person.name}</Link>,
                  },
                  { label: 'Email', cell: (person) => person.email ?? <span class="muted">none</span> },
                  { label: 'Updated', cell: (person) => <Time at={person.updatedAt} /> },
                ]}
              />
            )}
          </section>
        </>
      )}
    </>
  );
}

function RenameForm({ account, onSaved }: { account: Account; onSaved: (account: Account) => void }) {
  const { client } = useSession();
  const [name, setName] = useState(account.name ?? '');
  const save = useAction(async () => {
    onSaved(
      await unwrap(
        client.PATCH('/v0/accounts/{account_id}', {
          params: { path: { account_id: account.accountId } },
          body: { name },
        }),
      ),
    );
  });
  return (
    <SubmitForm
      class="card search"
      onSubmit={() => void save.run()}
      {...outcomeOf(save, 'Renamed.')}
      operation="renameAccount"
    >
      <Field label="Company name" name="name" hint="Pages made for its people say it">
        {(control) => <TextInput {...control} required value={name} onValue={setName} />}
      </Field>
      <div class="actions">
        <Submit label="Rename" primary={false} disabled={name === (account.name ?? '')} />
      </div>
    </SubmitForm>
  );
}
