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

/** Finds a person by any part of their name or email; the newest persons when the search is empty. */
export function PersonPicker({ selected, onSelect }: PickerProps) {
  const { client } = useSession();
  const [query, setQuery] = useState('');
  const settled = useDebounced(query.trim());
  const results = useLoad(async (): Promise<Choice[]> => {
    const search = settled ? { query: settled, limit: RESULTS } : { limit: RESULTS };
    const found = await unwrap(client.GET('/v0/persons', { params: { query: search } }));
    return found.items.map(personChoice);
  }, [settled]);
  return (
    <>
      <Field label="Find the person" name="personSearch" hint="Any part of their name or email">
        {(control) => <TextInput {...control} type="search" value={query} onValue={setQuery} />}
      </Field>
      <ProblemMessage failure={results.failure} />
      <Choices
        legend={settled ? 'Matching persons' : 'Newest persons'}
        choices={results.loading && !results.data ? undefined : results.data}
        selected={selected}
        onSelect={onSelect}
        empty="No person matches. Persons are created through the API or by the page's form."
      />
    </>
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
export function AccountPicker({ selected, onSelect }: PickerProps) {
  const { client } = useSession();
  const [query, setQuery] = useState('');
  const settled = useDebounced(query.trim());
  const results = useLoad(
    () =>
      unwrap(
        client.GET('/v0/accounts/search', { params: { query: { query: settled, limit: RESULTS } } }),
      ).then((page) => page.items.map(accountChoice)),
    [settled],
  );
  return (
    <>
      <Field label="Find the company" name="accountSearch" hint="Its name or domain">
        {(control) => <TextInput {...control} type="search" value={query} onValue={setQuery} />}
      </Field>
      <ProblemMessage failure={results.failure} />
      <Choices
        legend={settled ? 'Matching companies' : 'Newest companies'}
        choices={results.loading && !results.data ? undefined : results.data}
        selected={selected}
        onSelect={onSelect}
        empty="No company matches."
      />
    </>
  );
}
