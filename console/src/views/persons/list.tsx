import type { Person } from '@tailor/client';
import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { Time } from '../../components/format.tsx';
import { Field, TextInput } from '../../components/forms.tsx';
import { CreateLink, ViewHead } from '../../components/layout.tsx';
import { PagedList } from '../../components/paged-list.tsx';
import { useDebounced } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';

/** Persons, newest first, searched by name or email as you type; a company's people are under Accounts. */
export function PersonList() {
  const { client } = useSession();
  const [query, setQuery] = useState('');
  const settled = useDebounced(query.trim());
  return (
    <>
      <ViewHead title="Persons">
        <CreateLink href="/persons/new">New person</CreateLink>
      </ViewHead>
      <search class="search">
        <Field
          label="Search by name or email"
          name="query"
          hint={
            <>
              Any part of either. The people of a company are listed with it, under{' '}
              <Link href="/accounts">Accounts</Link>.
            </>
          }
        >
          {(control) => (
            <TextInput {...control} type="search" autocomplete="off" value={query} onValue={setQuery} />
          )}
        </Field>
      </search>
      <PagedList<Person>
        caption="Persons"
        deps={[settled]}
        load={(cursor) =>
          unwrap(client.GET('/v0/persons', { params: { query: { cursor, query: settled } } }))
        }
        rowKey={(person) => person.personId}
        empty={
          settled
            ? 'No person matches.'
            : 'No persons yet: they are made here, through the API, or by a page form.'
        }
        columns={[
          {
            label: 'Name',
            cell: (person) => <Link href={`/persons/${person.personId}`}>{person.name}</Link>,
          },
          { label: 'Email', cell: (person) => person.email ?? <span class="muted">none</span> },
          { label: 'Company domain', cell: (person) => person.domain ?? <span class="muted">none</span> },
          { label: 'Updated', cell: (person) => <Time at={person.updatedAt} /> },
        ]}
      />
    </>
  );
}
