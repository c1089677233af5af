import type { Audience, AudienceVersionContent, AudienceVersionWithContent } from '@tailor/client';
import { useEffect, useState } from 'preact/hooks';
import { advertisedSchema, type JsonSchema } from '../../advertised.ts';
import { unwrap } from '../../api.ts';
import { Field, SubmitForm, TextArea, TextInput } from '../../components/forms.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { Rows } from '../../components/rows.tsx';
import { useAction, useLoad } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import {
  type Copy,
  carryCopy,
  changedParts,
  copyOf,
  EDIT_SCHEMA,
  saveEdit,
  type VersionIds,
} from './edits.ts';
import './copy-editor.css';

export type { VersionIds } from './edits.ts';

type Section = Copy['sections'][number];
type Action = AudienceVersionContent['actions'][number];

const BLANK_SECTION: Section = { heading: '', body: '' };

/** The bounds of an edit, as the schema the server advertises sets them. */
interface Limits {
  headline?: number;
  subheadline?: number;
  sections?: number;
  heading?: number;
  body?: number;
}

function limitsOf(schema: JsonSchema): Limits {
  const parts = schema.properties?.content?.properties;
  const section = parts?.sections?.items?.properties;
  return {
    headline: parts?.headline?.maxLength,
    subheadline: parts?.subheadline?.maxLength,
    sections: parts?.sections?.maxItems,
    heading: section?.heading?.maxLength,
    body: section?.body?.maxLength,
  };
}

/** Characters as the API counts them (code points), so an emoji counts once. */
const length = (text: string) => [...text].length;
const characters = (limit: number) => `${limit.toLocaleString('en')} characters`;

/** "Plain text, up to 90 characters; 42 so far." */
function plainHint(limit: number | undefined, text: string, extra = ''): string {
  const bound = limit === undefined ? '' : `, up to ${characters(limit)}`;
  return `Plain text${bound}${extra}; ${length(text)} so far.`;
}

function sectionsHint(limit: number | undefined): string {
  return limit === undefined
    ? 'Shown in this order, below the headline.'
    : `Up to ${limit}, shown in this order below the headline.`;
}

/** The page's actions a body may link to: those with an address (the check allows no other link). */
function linkTargets(actions: Action[]): { linkable: Action[]; unlinkable: Action[] } {
  return {
    linkable: actions.filter((action) => action.url),
    unlinkable: actions.filter((action) => !action.url),
  };
}

/** "Talk to sales has" / "Talk to sales and Book a call have", for the actions named. */
function titlesHave(actions: Action[]): string {
  const titles = actions.map((action) => `“${action.buttonTitle}”`);
  const last = titles.pop();
  return titles.length ? `${titles.join(', ')} and ${last} have` : `${last} has`;
}

/** `[text](url)`, its text safe from ending the link early. */
function markdownLink(text: string, url: string): string {
  return `[${text.replace(/([[\]\\])/g, '\\$1')}](${/[\s()<>]/.test(url) ? `<${url}>` : url})`;
}

/**
 * A link to `action` put into the body at the writer's selection in `textarea`: the selected words
 * become the link's text (else the action's button text), and the caret goes after it.
 */
function insertLink(body: string, textarea: HTMLTextAreaElement | null, action: Action) {
  const start = textarea?.selectionStart ?? body.length;
  const end = textarea?.selectionEnd ?? body.length;
  const link = markdownLink(body.slice(start, end).trim() || action.buttonTitle, action.url);
  return { body: body.slice(0, start) + link + body.slice(end), caret: start + link.length };
}

interface ActionLinksProps {
  actions: { linkable: Action[]; unlinkable: Action[] };
  /** The id of the body's text area, where the link goes. */
  bodyId: string;
  section: number;
  body: string;
  onBody: (body: string) => void;
}

/** The page's actions as link targets of one body: a button inserts a link to each. */
function ActionLinks({ actions, bodyId, section, body, onBody }: ActionLinksProps) {
  const { linkable, unlinkable } = actions;
  const noAddress =
    unlinkable.length > 0 && ` ${titlesHave(unlinkable)} no address (a form), so cannot be linked.`;
  if (linkable.length === 0)
    return (
      <p class="hint muted">
        This page has no action with an address, so a body cannot link anywhere.{noAddress}
      </p>
    );
  const insert = (action: Action) => {
    const textarea = document.getElementById(bodyId) as HTMLTextAreaElement | null;
    const next = insertLink(body, textarea, action);
    onBody(next.body);
    // Once the new text is in place: back to the body, the caret after the link.
    setTimeout(() => {
      textarea?.focus();
      textarea?.setSelectionRange(next.caret, next.caret);
    });
  };
  return (
    <fieldset class="link-targets">
      <legend class="hint">
        Link section {section + 1} to one of the page's actions (the words selected become the link).
        {noAddress}
      </legend>
      <div class="actions">
        {linkable.map((action) => (
          <button
            key={action.actionId}
            type="button"
            class="link-target"
            title={action.url}
            onClick={() => insert(action)}
          >
            {action.buttonTitle}
          </button>
        ))}
      </div>
    </fieldset>
  );
}

interface CopyEditorProps {
  ids: VersionIds;
  /** A draft, with its content. */
  version: AudienceVersionWithContent & { content: AudienceVersionContent };
  /** The audience's latest version: the one that publishing publishes. */
  latest: AudienceVersionWithContent;
  onSaved: (version: AudienceVersionWithContent) => void;
  onPublished: (audience: Audience) => void;
  /** The audience has a newer version than the list shown: it must be read again. */
  onStale: () => void;
}

/**
 * A draft's headline, subheadline and sections, saved with PATCH …/versions/{versionId} once they hold
 * to the schema the server advertises (whose limits each field states); each part refused shows its
 * reason beside it, and the outcome shows beside the buttons. Publishing publishes the audience's
 * latest version, so it is offered only when this draft is that version, after saving what is
 * unsaved; an older draft offers to carry its copy into the newer one instead.
 */
export function CopyEditor({ ids, version, latest, onSaved, onPublished, onStale }: CopyEditorProps) {
  const { client } = useSession();
  const limits = useLoad(() => advertisedSchema(EDIT_SCHEMA).then(limitsOf), []);
  const saved = copyOf(version.content);
  const [copy, setCopy] = useState<Copy>(saved);
  const [status, setStatus] = useState('');
  // Another version opened, or this one saved: the form starts again from the copy as stored.
  useEffect(() => setCopy(copyOf(version.content)), [version.versionId, version.editedAt]);

  const change = (next: Copy) => {
    setCopy(next);
    setStatus('');
  };
  const edit = changedParts(saved, copy);
  const dirty = Object.keys(edit).length > 0;
  const isLatest = latest.versionId === version.versionId;
  const audiencePath = { params: { path: { page_id: ids.pageId, audience_id: ids.audienceId } } };
  const targets = linkTargets(version.content.actions);
  const bound = limits.data ?? {};

  const act = useAction(async (action: 'save' | 'publish') => {
    setStatus('');
    if (dirty) onSaved(await saveEdit(client, ids, edit));
    if (action === 'save') {
      setStatus(`Saved at ${new Date().toLocaleTimeString()}: the preview shows the edit.`);
      return;
    }
    // Publishing takes the latest version, whichever it is: one made since this list was read
    // would be published in this draft's place.
    const audience = await unwrap(client.GET('/v0/pages/{page_id}/audiences/{audience_id}', audiencePath));
    if (audience.latestVersion.versionId !== version.versionId) {
      onStale();
      return;
    }
    onPublished(
      await unwrap(client.POST('/v0/pages/{page_id}/audiences/{audience_id}/publish', audiencePath)),
    );
  });

  const sectionPath = (index: number, part: keyof Section) => `content/sections/${index}/${part}`;
  return (
    <section class="card copy-editor" aria-labelledby="copy-editor-heading">
      <h2 id="copy-editor-heading">Edit the copy</h2>
      <ProblemMessage failure={limits.failure} />
      {!isLatest && (
        <Superseded
          ids={ids}
          version={version}
          latest={latest}
          copy={copy}
          edited={dirty || !!version.editedAt}
        />
      )}
      <SubmitForm onSubmit={() => void act.run('save')}>
        <Field
          label="Headline"
          name="content/headline"
          failure={act.failure}
          hint={plainHint(bound.headline, copy.headline)}
        >
          {(control) => (
            <TextInput
              {...control}
              value={copy.headline}
              onValue={(headline) => change({ ...copy, headline })}
            />
          )}
        </Field>
        <Field
          label="Subheadline"
          name="content/subheadline"
          failure={act.failure}
          hint={plainHint(bound.subheadline, copy.subheadline, ', empty for none')}
        >
          {(control) => (
            <TextArea
              {...control}
              value={copy.subheadline}
              onValue={(subheadline) => change({ ...copy, subheadline })}
            />
          )}
        </Field>
        <Rows<Section>
          legend="Sections"
          noun="Section"
          items={copy.sections}
          blank={BLANK_SECTION}
          max={bound.sections}
          movable
          onChange={(sections) => change({ ...copy, sections })}
          hint={sectionsHint(bound.sections)}
        >
          {(section, update, index) => (
            <>
              <Field
                label="Heading"
                name={sectionPath(index, 'heading')}
                failure={act.failure}
                hint={plainHint(bound.heading, section.heading)}
              >
                {(control) => (
                  <TextInput
                    {...control}
                    value={section.heading}
                    onValue={(heading) => update({ heading })}
                  />
                )}
              </Field>
              <Field
                label="Body"
                name={sectionPath(index, 'body')}
                failure={act.failure}
                hint={
                  <>
                    Safe markdown: <code>**bold**</code>, <code>*italic*</code>, <code>- </code> lists, and
                    links to the page's actions only; no HTML.
                    {bound.body !== undefined && ` Up to ${characters(bound.body)}.`}
                  </>
                }
              >
                {(control) => (
                  <>
                    <TextArea {...control} value={section.body} onValue={(body) => update({ body })} />
                    <ActionLinks
                      actions={targets}
                      bodyId={control.id}
                      section={index}
                      body={section.body}
                      onBody={(body) => update({ body })}
                    />
                  </>
                )}
              </Field>
            </>
          )}
        </Rows>
        <div class="actions">
          <button type="submit" disabled={act.pending || !dirty}>
            Save
          </button>
          {dirty && (
            <button type="button" disabled={act.pending} onClick={() => change(saved)}>
              Undo changes
            </button>
          )}
          {isLatest && (
            <button
              type="button"
              class="primary"
              disabled={act.pending}
              onClick={() => void act.run('publish')}
            >
              {dirty ? 'Save and publish' : 'Publish'} version {version.versionNumber}
            </button>
          )}
          <span class="muted" role="status" aria-live="polite">
            {act.pending ? 'Sending…' : status}
          </span>
        </div>
        <div class="outcome">
          <ProblemMessage failure={act.failure} />
        </div>
      </SubmitForm>
    </section>
  );
}

interface SupersededProps {
  ids: VersionIds;
  version: AudienceVersionWithContent;
  latest: AudienceVersionWithContent;
  /** The copy in the form. */
  copy: Copy;
  /** The draft's copy is not as generated (edited, or changed in the form). */
  edited: boolean;
}

const TAKES_EDITS = new Set(['queued', 'processing', 'pending', 'draft']);

/**
 * A draft that a newer version follows can no longer be published: said, and, when its copy was
 * edited and the newer version is (or will be) a draft, its copy carried there on request.
 */
function Superseded({ ids, version, latest, copy, edited }: SupersededProps) {
  const { client } = useSession();
  const [carried, setCarried] = useState<AudienceVersionWithContent | null>(null);
  const latestIds = { ...ids, versionId: latest.versionId };
  const carry = useAction(async () => setCarried(await carryCopy(client, latestIds, copy)));
  const latestHref = `/pages/${ids.pageId}/audiences/${ids.audienceId}/versions/${latest.versionId}`;
  const canCarry = edited && TAKES_EDITS.has(latest.state) && !latest.archivedAt;
  return (
    <div class="notice warn">
      <p>
        Version {latest.versionNumber} is newer: publishing publishes the latest version, so this draft can be
        edited but not published.{' '}
        <Link href={`/pages/${ids.pageId}/audiences/${ids.audienceId}`}>See the audience's versions</Link>.
      </p>
      {canCarry && !carried && (
        <p class="actions">
          <button type="button" disabled={carry.pending} onClick={() => void carry.run()}>
            Carry these edits into version {latest.versionNumber}
          </button>
          <span role="status" aria-live="polite">
            {carry.pending &&
              (latest.state === 'draft'
                ? 'Carrying…'
                : `Waiting for version ${latest.versionNumber} to be generated…`)}
          </span>
        </p>
      )}
      {carried && (
        <p role="status">
          Version {version.versionNumber}'s copy is in version {carried.versionNumber} now.{' '}
          <Link href={latestHref}>Open version {carried.versionNumber}</Link> to check and publish it.
        </p>
      )}
      <ProblemMessage failure={carry.failure} />
    </div>
  );
}
