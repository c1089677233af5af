import type { Person } from '@tailor/client';
import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { Time } from '../../components/format.tsx';
import { Field, TextInput } from '../../components/forms.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { PagedList } from '../../components/paged-list.tsx';
import { useDebounced } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession, Writable } from '../../session.tsx';

/**
 * Persons, newest first. The API finds a person by their whole email address (any letter case);
 * people of a company are found through the company, under Accounts.
 */
export function PersonList() {
  const { client } = useSession();
  const [email, setEmail] = useState('');
  const settled = useDebounced(email.trim());
  return (
    <>
      <ViewHead title="Persons">
        <Writable>
          <Link class="button primary" href="/persons/new">
            New person
          </Link>
        </Writable>
      </ViewHead>
      <search class="search">
        <Field
          label="Find by email"
          name="email"
          hint={
            <>
              The whole address. To find the people of a company, search{' '}
              <Link href="/accounts">Accounts</Link>.
            </>
          }
        >
          {(control) => (
            <TextInput {...control} type="search" autocomplete="off" value={email} onValue={setEmail} />
          )}
        </Field>
      </search>
      <PagedList<Person>
        caption="Persons"
        deps={[settled]}
        load={(cursor) =>
          unwrap(
            client.GET('/v0/persons', {
              params: { query: { cursor, ...(settled ? { email: settled } : {}) } },
            }),
          )
        }
        rowKey={(person) => person.personId}
        empty={
          settled
            ? 'No person has this email.'
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
