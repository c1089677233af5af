import type { AccountSearchItem } from '@tailor/client';
import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { Time } from '../../components/format.tsx';
import { Checkbox, Field, outcomeOf, Submit, SubmitForm, TextInput } from '../../components/forms.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { PagedList } from '../../components/paged-list.tsx';
import { useAction, useDebounced } from '../../hooks.ts';
import { Link, navigate } from '../../router.tsx';
import { useSession, Writable } from '../../session.tsx';

/** Accounts (companies), newest first, searched by name or domain as you type. */
export function AccountList() {
  const { client } = useSession();
  const [query, setQuery] = useState('');
  const [emptyOnly, setEmptyOnly] = useState(false);
  const settled = useDebounced(query.trim());
  return (
    <>
      <ViewHead title="Accounts" />
      <Writable>
        <NewAccount />
      </Writable>
      <search class="search">
        <Field label="Search by name or domain" name="query">
          {(control) => <TextInput {...control} type="search" value={query} onValue={setQuery} />}
        </Field>
        <Checkbox label="Only accounts with no person" checked={emptyOnly} onChecked={setEmptyOnly} />
      </search>
      <PagedList<AccountSearchItem>
        caption="Accounts"
        deps={[settled, emptyOnly]}
        load={(cursor) =>
          unwrap(
            client.GET('/v0/accounts/search', {
              params: {
                query: { cursor, query: settled, ...(emptyOnly ? { includeEmptyOnly: 'true' } : {}) },
              },
            }),
          )
        }
        rowKey={(account) => account.accountId}
        empty={
          settled || emptyOnly
            ? 'No account matches.'
            : 'No accounts yet: a person with a company domain makes one.'
        }
        columns={[
          {
            label: 'Company',
            cell: (account) => (
              <Link href={`/accounts/${account.accountId}`}>{account.name ?? account.domain}</Link>
            ),
          },
          { label: 'Domain', cell: (account) => account.domain },
          { label: 'Persons', cell: (account) => account.linkedPersonsCount.toLocaleString() },
          { label: 'Latest activity', cell: (account) => <Time at={account.latestActivityAt} /> },
        ]}
      />
    </>
  );
}

/** Adds a company by its domain (any form: a URL on it will do), with an optional name. */
function NewAccount() {
  const { client } = useSession();
  const [domain, setDomain] = useState('');
  const [name, setName] = useState('');
  const create = useAction(async () => {
    const account = await unwrap(
      client.POST('/v0/accounts', { body: { domain, ...(name.trim() ? { name: name.trim() } : {}) } }),
    );
    navigate(`/accounts/${account.accountId}`);
  });
  return (
    <details class="card" open={create.failure !== null}>
      <summary>New account</summary>
      <SubmitForm onSubmit={() => void create.run()} {...outcomeOf(create)} operation="createAccount">
        <div class="row">
          <Field label="Domain" name="domain" hint="globex.example, or a URL on it">
            {(control) => (
              <TextInput {...control} required spellcheck={false} value={domain} onValue={setDomain} />
            )}
          </Field>
          <Field label="Name" name="name" hint="Optional">
            {(control) => <TextInput {...control} value={name} onValue={setName} />}
          </Field>
        </div>
        <div class="actions">
          <Submit label="Create the account" pendingLabel="Creating…" />
        </div>
      </SubmitForm>
    </details>
  );
}
