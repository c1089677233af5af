import type { AccountSearchItem, Person } from '@tailor/client';
import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { Field, TextInput } from '../../components/forms.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useDebounced, useLoad } from '../../hooks.ts';
import { useSession } from '../../session.tsx';

const RESULTS = 8;

interface Choice {
  id: string;
  label: ComponentChildren;
}

interface ChoicesProps {
  legend: string;
  choices: Choice[] | undefined;
  selected: string;
  onSelect: (id: string) => void;
  empty: string;
}

/** Search results as a radio group: arrow keys move between them, as in any form. */
function Choices({ legend, choices, selected, onSelect, empty }: ChoicesProps) {
  const name = useId();
  if (!choices) return <p class="muted">Searching…</p>;
  if (choices.length === 0) return <p class="muted">{empty}</p>;
  return (
    <fieldset>
      <legend>{legend}</legend>
      {choices.map((choice) => (
        <div class="check" key={choice.id}>
          <input
            type="radio"
            id={`${name}-${choice.id}`}
            name={name}
            checked={choice.id === selected}
            onChange={() => onSelect(choice.id)}
          />
          <label for={`${name}-${choice.id}`}>{choice.label}</label>
        </div>
      ))}
    </fieldset>
  );
}

function personChoice(person: Person): Choice {
  const details = [person.email, person.domain].filter(Boolean).join(' · ');
  return {
    id: person.personId,
    label: (
      <>
        {person.name}
        {details && <span class="muted"> · {details}</span>}
      </>
    ),
  };
}

interface PickerProps {
  selected: string;
  onSelect: (id: string) => void;
}

interface SearchPickerProps extends PickerProps {
  /** What is searched for, in the field's label and the results' legend: "person", "company". */
  noun: { one: string; many: string };
  hint: string;
  empty: string;
  /** The choices for a search as typed (trimmed and settled); the newest ones for an empty search. */
  search: (query: string) => Promise<Choice[]>;
}

/** A search field whose results, found as you type, are offered as a radio group. */
function SearchPicker({ noun, hint, empty, search, selected, onSelect }: SearchPickerProps) {
  const [query, setQuery] = useState('');
  const settled = useDebounced(query.trim());
  const results = useLoad(() => search(settled), [settled]);
  return (
    <>
      <Field label={`Find the ${noun.one}`} name={`${noun.one}Search`} hint={hint}>
        {(control) => <TextInput {...control} type="search" value={query} onValue={setQuery} />}
      </Field>
      <ProblemMessage failure={results.failure} />
      <Choices
        legend={`${settled ? 'Matching' : 'Newest'} ${noun.many}`}
        choices={results.loading && !results.data ? undefined : results.data}
        selected={selected}
        onSelect={onSelect}
        empty={empty}
      />
    </>
  );
}

/** Finds a person by any part of their name or email. */
export function PersonPicker(props: PickerProps) {
  const { client } = useSession();
  return (
    <SearchPicker
      {...props}
      noun={{ one: 'person', many: 'persons' }}
      hint="Any part of their name or email"
      empty="No person matches. Persons are created through the API or by the page's form."
      search={async (query) => {
        const search = query ? { query, limit: RESULTS } : { limit: RESULTS };
        const found = await unwrap(client.GET('/v0/persons', { params: { query: search } }));
        return found.items.map(personChoice);
      }}
    />
  );
}

function accountChoice(account: AccountSearchItem): Choice {
  return {
    id: account.accountId,
    label: (
      <>
        {account.name ?? account.domain}
        <span class="muted">
          {' '}
          · {account.domain} · {account.linkedPersonsCount} persons
        </span>
      </>
    ),
  };
}

/** Finds an account (a company) by its name or domain. */
export function AccountPicker(props: PickerProps) {
  const { client } = useSession();
  return (
    <SearchPicker
      {...props}
      noun={{ one: 'company', many: 'companies' }}
      hint="Its name or domain"
      empty="No company matches."
      search={async (query) => {
        const found = await unwrap(
          client.GET('/v0/accounts/search', { params: { query: { query, limit: RESULTS } } }),
        );
        return found.items.map(accountChoice);
      }}
    />
  );
}
