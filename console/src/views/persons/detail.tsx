import type { Person, PersonLog } from '@tailor/client';
import { useEffect, useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { useAudienceDirectory } from '../../audience-directory.ts';
import { ConfirmButton } from '../../components/confirm.tsx';
import { StatusBadge, Time, WebLink } from '../../components/format.tsx';
import { Field, outcomeOf, Submit, SubmitForm, TextArea } from '../../components/forms.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { PagedList } from '../../components/paged-list.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { Table } from '../../components/table.tsx';
import { useAction, useLoad } from '../../hooks.ts';
import { Link, navigate } from '../../router.tsx';
import { useSession, Writable } from '../../session.tsx';
import { LiveLink } from '../page-links/live.tsx';

export function PersonDetail({ personId }: { personId: string }) {
  const { client } = useSession();
  const path = { params: { path: { person_id: personId } } };
  const person = useLoad(() => unwrap(client.GET('/v0/persons/{person_id}', path)), [personId]);
  const erase = useAction(async () => {
    await unwrap(client.DELETE('/v0/persons/{person_id}', path));
    navigate('/persons', { replace: true });
  });
  return (
    <>
      <ViewHead title={person.data?.name ?? 'Person'} trail={<Link href="/persons">Persons</Link>}>
        {person.data && (
          <Writable>
            <Link class="button" href={`/persons/${personId}/edit`}>
              Edit
            </Link>
            <ConfirmButton
              label="Erase"
              question="Erase this person and their whole log for good?"
              confirm="Yes, erase"
              pending={erase.pending}
              onConfirm={erase.run}
            />
          </Writable>
        )}
      </ViewHead>
      <ProblemMessage failure={person.failure ?? erase.failure} />
      {person.data && <PersonFacts person={person.data} />}
      <PersonPages personId={personId} />
      <PersonLogs personId={personId} />
    </>
  );
}

/** The account of the person's domain, found by searching accounts for it. */
function useCompany(domain: string | null) {
  const { client } = useSession();
  return useLoad(async () => {
    if (!domain) return null;
    const found = await unwrap(
      client.GET('/v0/accounts/search', { params: { query: { query: domain, limit: 10 } } }),
    );
    return found.items.find((account) => account.domain === domain) ?? null;
  }, [domain]);
}

function PersonFacts({ person }: { person: Person }) {
  const company = useCompany(person.domain);
  return (
    <div class="card">
      <dl class="facts">
        <div>
          <dt>Email</dt>
          <dd>{person.email ?? <span class="muted">none</span>}</dd>
        </div>
        <div>
          <dt>Company</dt>
          <dd>
            {company.data ? (
              <Link href={`/accounts/${company.data.accountId}`}>
                {company.data.name ?? company.data.domain}
              </Link>
            ) : (
              (person.domain ?? <span class="muted">none</span>)
            )}
          </dd>
        </div>
        <div>
          <dt>Phone</dt>
          <dd>{person.phoneNumber ?? <span class="muted">none</span>}</dd>
        </div>
        <div>
          <dt>LinkedIn</dt>
          <dd>
            {person.linkedinProfileUrl ? (
              <WebLink url={person.linkedinProfileUrl}>Profile</WebLink>
            ) : (
              <span class="muted">none</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Page address key</dt>
          <dd>
            <code>{person.slug}</code>
          </dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <Time at={person.updatedAt} />
          </dd>
        </div>
      </dl>
    </div>
  );
}

/** The pages made for the person: their audiences with their pages, the 100 newest first, older on demand. */
function PersonPages({ personId }: { personId: string }) {
  const directory = useAudienceDirectory([personId], { personId });
  useEffect(() => void directory.readMore(), [directory]);
  const theirs = [...directory.found.values()];
  return (
    <section aria-labelledby="pages-heading" aria-busy={directory.reading}>
      <h2 id="pages-heading">Pages for them</h2>
      <ProblemMessage failure={directory.failure} />
      {theirs.length > 0 && (
        <Table
          caption="Pages made for this person"
          items={theirs}
          rowKey={({ audience }) => audience.audienceId}
          columns={[
            { label: 'Page', cell: ({ page }) => <Link href={`/pages/${page.pageId}`}>{page.name}</Link> },
            {
              label: 'Audience',
              cell: ({ page, audience }) => (
                <Link href={`/pages/${page.pageId}/audiences/${audience.audienceId}`}>
                  {audience.effectiveName}
                </Link>
              ),
            },
            { label: 'Latest version', cell: ({ audience }) => <StatusBadge status={audience.status} /> },
            {
              label: 'Visitors see',
              cell: ({ audience }) => `version ${audience.publishedVersion.versionNumber}`,
            },
            {
              label: 'Live page',
              cell: ({ page, audience }) => <LiveLink page={page} audience={audience} explain />,
            },
          ]}
        />
      )}
      {directory.rounds > 0 && !directory.reading && (
        <div class="list-foot">
          <span class="muted" aria-live="polite">
            {directory.more
              ? `Showing the ${theirs.length} newest`
              : theirs.length === 0
                ? 'No page made for them yet.'
                : `Showing ${theirs.length}`}
          </span>
          {directory.more && (
            <button type="button" onClick={() => void directory.readMore()}>
              Show older ones
            </button>
          )}
        </div>
      )}
      {directory.reading && <p class="muted">Loading…</p>}
    </section>
  );
}

/** The person's log, newest first: notes written by users (editable) and Tailor's own activity. */
function PersonLogs({ personId }: { personId: string }) {
  const { client } = useSession();
  const [written, setWritten] = useState(0);
  return (
    <section aria-labelledby="log-heading">
      <h2 id="log-heading">Log</h2>
      <p class="muted">
        Notes guide the personalized pages made for this person; they are never shown on a page as written.
      </p>
      <Writable>
        <NoteForm personId={personId} onSaved={() => setWritten((count) => count + 1)} />
      </Writable>
      <PagedList<PersonLog>
        caption="Log"
        deps={[personId, written]}
        load={(cursor) =>
          unwrap(
            client.GET('/v0/persons/{person_id}/logs', {
              params: { path: { person_id: personId }, query: { cursor } },
            }),
          )
        }
        rowKey={(entry) => entry.personLogId}
        empty="Nothing logged yet."
        columns={[
          { label: 'When', cell: (entry) => <Time at={entry.createdAt} /> },
          { label: 'Kind', cell: (entry) => <StatusBadge status={entry.kind} /> },
          {
            label: 'Entry',
            cell: (entry) => <LogEntry entry={entry} onSaved={() => setWritten((count) => count + 1)} />,
          },
        ]}
      />
    </section>
  );
}

/** A note, editable in place (activity entries are Tailor's and stay as written). */
function LogEntry({ entry, onSaved }: { entry: PersonLog; onSaved: () => void }) {
  const [editing, setEditing] = useState(false);
  if (editing)
    return (
      <NoteForm
        personId={entry.personId}
        entry={entry}
        onSaved={() => {
          setEditing(false);
          onSaved();
        }}
        onCancel={() => setEditing(false)}
      />
    );
  return (
    <>
      <p class="log-text">{entry.text}</p>
      {entry.kind === 'note' && (
        <Writable>
          <button type="button" onClick={() => setEditing(true)}>
            Edit note
          </button>
        </Writable>
      )}
    </>
  );
}

interface NoteFormProps {
  personId: string;
  /** The note to change; a new note when absent. */
  entry?: PersonLog;
  onSaved: () => void;
  onCancel?: () => void;
}

function NoteForm({ personId, entry, onSaved, onCancel }: NoteFormProps) {
  const { client } = useSession();
  const [text, setText] = useState(entry?.text ?? '');
  const save = useAction(async () => {
    if (entry) {
      await unwrap(
        client.PATCH('/v0/persons/{person_id}/logs/{person_log_id}', {
          params: { path: { person_id: personId, person_log_id: entry.personLogId } },
          body: { text },
        }),
      );
    } else {
      await unwrap(
        client.POST('/v0/persons/{person_id}/logs', {
          params: { path: { person_id: personId } },
          body: { text },
        }),
      );
      setText('');
    }
    onSaved();
  });
  return (
    <SubmitForm
      class={entry ? undefined : 'card'}
      onSubmit={() => void save.run()}
      {...outcomeOf(save, entry ? 'Saved.' : 'Added.')}
      operation={entry ? 'updatePersonNote' : 'createPersonNote'}
    >
      <Field label={entry ? 'Note' : 'New note'} name="text">
        {(control) => <TextArea {...control} required value={text} onValue={setText} />}
      </Field>
      <div class="actions">
        <Submit label={entry ? 'Save note' : 'Add note'} pendingLabel="Saving…" />
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </SubmitForm>
  );
}
