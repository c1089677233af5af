import { unwrap } from '../../api.ts';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useAction, useLoad } from '../../hooks.ts';
import { Link, navigate } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { createBody, draftOf, NEW_PERSON, type PersonDraft, PersonForm, updateBody } from './form.tsx';

export function NewPerson() {
  const { client } = useSession();
  const create = useAction(async (draft: PersonDraft) => {
    const person = await unwrap(client.POST('/v0/persons', { body: createBody(draft) }));
    navigate(`/persons/${person.personId}`, { replace: true });
  });
  return (
    <>
      <ViewHead title="New person" trail={<Link href="/persons">Persons</Link>} />
      <PersonForm
        initial={NEW_PERSON}
        operation="createPerson"
        submitLabel="Create the person"
        failure={create.failure}
        pending={create.pending}
        onSubmit={create.run}
      />
    </>
  );
}

export function EditPerson({ personId }: { personId: string }) {
  const { client } = useSession();
  const path = { params: { path: { person_id: personId } } };
  const person = useLoad(() => unwrap(client.GET('/v0/persons/{person_id}', path)), [personId]);
  const save = useAction(async (draft: PersonDraft) => {
    if (!person.data) return;
    await unwrap(client.PATCH('/v0/persons/{person_id}', { ...path, body: updateBody(draft, person.data) }));
    navigate(`/persons/${personId}`);
  });
  return (
    <>
      <ViewHead
        title={person.data ? `Edit ${person.data.name}` : 'Edit person'}
        trail={
          <>
            <Link href="/persons">Persons</Link> ›{' '}
            <Link href={`/persons/${personId}`}>{person.data?.name ?? 'Person'}</Link>
          </>
        }
      />
      <ProblemMessage failure={person.failure} />
      {person.data && (
        <PersonForm
          initial={draftOf(person.data)}
          operation="updatePerson"
          submitLabel="Save changes"
          failure={save.failure}
          pending={save.pending}
          onSubmit={save.run}
        />
      )}
    </>
  );
}
