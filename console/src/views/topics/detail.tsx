import type { Brand, Topic } from '@tailor/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { ConfirmButton } from '../../components/confirm.tsx';
import { Time } from '../../components/format.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useAction, useLoad, useOperationSchema } from '../../hooks.ts';
import { schemaAt } from '../../operation-schemas.ts';
import { Link, navigate } from '../../router.tsx';
import { useSession, Writable } from '../../session.tsx';
import { useBrands } from '../brands/names.tsx';
import { EntryCard, EntryForm } from './entry.tsx';
import { TopicBrands } from './list.tsx';

/** What deleting `topic` takes with it, in the words of its confirmation. */
function deleteQuestion(topic: Topic): string {
  const entries = topic.entries.length;
  const what =
    entries === 0 ? 'this topic' : `this topic and its ${entries === 1 ? 'entry' : `${entries} entries`}`;
  return `Delete ${what} for good? Generation stops drawing on it at once; pages already generated keep their copy.`;
}

export function TopicDetail({ topicId }: { topicId: string }) {
  const { client } = useSession();
  const path = { params: { path: { topic_id: topicId } } };
  const topic = useLoad(() => unwrap(client.GET('/v0/topics/{topic_id}', path)), [topicId]);
  const brands = useBrands();
  const remove = useAction(async () => {
    await unwrap(client.DELETE('/v0/topics/{topic_id}', path));
    navigate('/topics', { replace: true });
  });
  return (
    <>
      <ViewHead title={topic.data?.title ?? 'Topic'} trail={<Link href="/topics">Topics</Link>}>
        {topic.data && (
          <Writable>
            <Link class="button" href={`/topics/${topicId}/edit`}>
              Edit
            </Link>
            <ConfirmButton
              label="Delete"
              question={deleteQuestion(topic.data)}
              confirm="Yes, delete"
              pending={remove.pending}
              onConfirm={remove.run}
            />
          </Writable>
        )}
      </ViewHead>
      <ProblemMessage failure={topic.failure ?? remove.failure} />
      {topic.data && <TopicFacts topic={topic.data} brands={brands.data} />}
      {topic.data && <Entries topic={topic.data} onChanged={topic.reload} />}
    </>
  );
}

function TopicFacts({ topic, brands }: { topic: Topic; brands: Brand[] | undefined }) {
  return (
    <div class="card">
      <dl class="facts">
        <div>
          <dt>Brands</dt>
          <dd>
            <TopicBrands topic={topic} brands={brands} />
          </dd>
        </div>
        <div>
          <dt>Default</dt>
          <dd>{topic.isDefault ? 'The default topic: every page' : 'no'}</dd>
        </div>
        <div>
          <dt>Order</dt>
          <dd>{topic.sortOrder}</dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <Time at={topic.updatedAt} />
          </dd>
        </div>
      </dl>
      <dl class="facts whole">
        <div>
          <dt>Purpose</dt>
          <dd class="log-text">{topic.purpose || <span class="muted">none</span>}</dd>
        </div>
      </dl>
    </div>
  );
}

function Entries({ topic, onChanged }: { topic: Topic; onChanged: () => Promise<void> }) {
  // A new key after each entry added gives the next one an empty form.
  const [added, setAdded] = useState(0);
  const [deleted, setDeleted] = useState<{ number: number } | null>(null);
  const said = useRef<HTMLParagraphElement>(null);
  // The deleted entry's buttons are gone: focus goes to what says it was deleted.
  useEffect(() => {
    if (deleted !== null) said.current?.focus();
  }, [deleted]);
  // How many entries a topic may hold, as the topic the API answers says.
  const answer = useOperationSchema('getTopic');
  const limit = answer && schemaAt(answer, '/answer/entries')?.maxItems;
  const full = limit !== undefined && topic.entries.length >= limit;
  return (
    <section aria-labelledby="entries-heading">
      <h2 id="entries-heading">Entries</h2>
      <p class="muted">
        Shown as a generated page shows them: paragraphs, lists, bold, italic and links, whatever their
        format. Generation picks the entries most relevant to each audience.
        {limit !== undefined &&
          ` A topic holds up to ${limit} entries; this one has ${topic.entries.length}.`}
      </p>
      {deleted !== null && (
        <p class="notice" role="status" tabIndex={-1} ref={said}>
          Entry {deleted.number} was deleted; generation no longer draws on it.
        </p>
      )}
      <Writable>
        {full ? (
          <p class="muted">This topic holds {limit} entries, as many as a topic may: split it to add more.</p>
        ) : (
          <details class="card" open={topic.entries.length === 0}>
            <summary>Add an entry</summary>
            <EntryForm
              key={added}
              topicId={topic.topicId}
              onSaved={() => {
                setAdded((count) => count + 1);
                setDeleted(null);
                void onChanged();
              }}
            />
          </details>
        )}
      </Writable>
      {topic.entries.length === 0 ? (
        <p class="muted">No entry yet.</p>
      ) : (
        topic.entries.map((entry, index) => (
          <EntryCard
            key={entry.topicEntryId}
            topicId={topic.topicId}
            entry={entry}
            number={index + 1}
            onSaved={() => void onChanged()}
            onDeleted={() => {
              setDeleted({ number: index + 1 });
              void onChanged();
            }}
          />
        ))
      )}
    </section>
  );
}
