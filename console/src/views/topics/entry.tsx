import type { TopicEntry } from '@tailor/client';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { ConfirmButton } from '../../components/confirm.tsx';
import { Time } from '../../components/format.tsx';
import {
  CharacterCount,
  type Choice,
  Field,
  outcomeOf,
  Select,
  Submit,
  SubmitForm,
  TextArea,
  TextInput,
} from '../../components/forms.tsx';
import { Markdown, MarkdownHtml, useRenderedMarkdown } from '../../components/markdown.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useAction } from '../../hooks.ts';
import { useSession, Writable } from '../../session.tsx';
import { PageChanges } from './page-changes.tsx';

type Format = TopicEntry['content']['type'];

const FORMATS: Choice<Format>[] = [
  { value: 'markdown', label: 'markdown' },
  { value: 'text', label: 'text' },
];

interface EntryFormProps {
  topicId: string;
  /** The entry to change, and its place in the topic; a new entry when absent. */
  entry?: { entry: TopicEntry; number: number };
  onSaved: () => void;
  onCancel?: () => void;
}

/**
 * An entry's text, format and order, beside a live preview of the text as a page shows it and, before
 * it is saved, what a page will leave out or show otherwise.
 */
export function EntryForm({ topicId, entry, onSaved, onCancel }: EntryFormProps) {
  const { client } = useSession();
  const [text, setText] = useState(entry?.entry.content.content ?? '');
  const rendered = useRenderedMarkdown(text);
  const [type, setType] = useState<Format>(entry?.entry.content.type ?? 'markdown');
  const [sortOrder, setSortOrder] = useState(String(entry?.entry.sortOrder ?? 0));
  const box = useRef<HTMLDivElement>(null);
  const id = useId();
  // Editing replaces the entry shown, and the button pressed with it: focus goes to the text.
  useEffect(() => {
    if (entry) box.current?.querySelector('textarea')?.focus();
  }, []);
  const save = useAction(async () => {
    const body = {
      content: { type, content: text },
      // An order that is not a whole number is refused in the API's words, beside its field.
      sortOrder: sortOrder.trim() === '' ? 0 : Number(sortOrder),
    };
    if (entry) {
      const path = { topic_id: topicId, topic_entry_id: entry.entry.topicEntryId };
      await unwrap(
        client.PATCH('/v0/topics/{topic_id}/entries/{topic_entry_id}', { params: { path }, body }),
      );
    } else {
      await unwrap(
        client.POST('/v0/topics/{topic_id}/entries', { params: { path: { topic_id: topicId } }, body }),
      );
    }
    onSaved();
  });
  const label = entry ? `Entry ${entry.number}` : 'New entry';
  return (
    <div ref={box}>
      <SubmitForm
        class="entry-form"
        onSubmit={() => void save.run()}
        {...outcomeOf(save)}
        operation={entry ? 'updateTopicEntry' : 'createTopicEntry'}
      >
        <fieldset class="entry-editor">
          <legend>{label}</legend>
          <div>
            <Field
              label="Text"
              name="content/content"
              hint="Paragraphs (a blank line between), lists (- or 1.), **bold**, *italic*, [links](https://…)"
            >
              {(control) => (
                <>
                  <TextArea {...control} required value={text} onValue={setText} />
                  <CharacterCount name="content/content" text={text} />
                </>
              )}
            </Field>
            <div class="row">
              <Field label="Format" name="content/type" hint="Either way, a page shows it as previewed">
                {(control) => <Select {...control} value={type} choices={FORMATS} onValue={setType} />}
              </Field>
              <Field label="Order" name="sortOrder" hint="Lower comes first">
                {(control) => (
                  <TextInput
                    {...control}
                    type="number"
                    min={0}
                    inputMode="numeric"
                    value={sortOrder}
                    onValue={setSortOrder}
                  />
                )}
              </Field>
            </div>
          </div>
          <section class="entry-preview" aria-labelledby={`${id}-preview`}>
            <h3 id={`${id}-preview`}>
              Preview<span class="visually-hidden"> of {label.toLowerCase()}</span>
            </h3>
            <div class="preview-box">
              {text.trim() ? (
                <MarkdownHtml rendered={rendered} />
              ) : (
                <p class="muted">The text shows here as you type.</p>
              )}
            </div>
            {rendered && <PageChanges rendered={rendered} />}
          </section>
        </fieldset>
        <div class="actions">
          <Submit label={entry ? `Save entry ${entry.number}` : 'Add the entry'} pendingLabel="Saving…" />
          {onCancel && (
            <button type="button" onClick={onCancel}>
              Cancel
            </button>
          )}
        </div>
      </SubmitForm>
    </div>
  );
}

/** An entry as a page shows it, with its format and order; editable in place, and deletable. */
export function EntryCard({
  topicId,
  entry,
  number,
  onSaved,
  onDeleted,
}: {
  topicId: string;
  entry: TopicEntry;
  number: number;
  onSaved: () => void;
  onDeleted: () => void;
}) {
  const { client } = useSession();
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  // Back from the editor, focus returns to the button that opened it.
  useEffect(() => {
    if (wasEditing.current && !editing) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  const remove = useAction(async () => {
    const path = { topic_id: topicId, topic_entry_id: entry.topicEntryId };
    await unwrap(client.DELETE('/v0/topics/{topic_id}/entries/{topic_entry_id}', { params: { path } }));
    onDeleted();
  });
  if (editing)
    return (
      <div class="card">
        <EntryForm
          topicId={topicId}
          entry={{ entry, number }}
          onSaved={() => {
            setEditing(false);
            onSaved();
          }}
          onCancel={() => setEditing(false)}
        />
      </div>
    );
  return (
    <article class="card entry" aria-label={`Entry ${number}`}>
      <Markdown source={entry.content.content} />
      <div class="entry-foot">
        <span class="muted">
          {entry.content.type} · order {entry.sortOrder} · updated <Time at={entry.updatedAt} />
        </span>
        <Writable>
          <span class="actions">
            <button type="button" ref={editButton} onClick={() => setEditing(true)}>
              Edit entry {number}
            </button>
            <ConfirmButton
              label={`Delete entry ${number}`}
              question={`Delete entry ${number} for good? Pages already generated keep their copy.`}
              confirm="Yes, delete"
              pending={remove.pending}
              onConfirm={remove.run}
            />
          </span>
        </Writable>
      </div>
      <ProblemMessage failure={remove.failure} />
    </article>
  );
}
