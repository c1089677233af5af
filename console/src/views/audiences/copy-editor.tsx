import type { Audience, AudienceVersionContent, AudienceVersionWithContent } from '@tailor/client';
import { useEffect, useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import {
  CharacterCount,
  Field,
  outcomeOf,
  Submit,
  SubmitForm,
  TextArea,
  TextInput,
} from '../../components/forms.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { Rows } from '../../components/rows.tsx';
import { useAction } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { type Copy, carryCopy, changedParts, copyOf, saveEdit, type VersionIds } from './edits.ts';
import './copy-editor.css';

export type { VersionIds } from './edits.ts';

type Section = Copy['sections'][number];
type Action = AudienceVersionContent['actions'][number];

const BLANK_SECTION: Section = { heading: '', body: '' };

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
 * A draft's headline, subheadline and sections, saved with PATCH …/versions/{versionId}: each field
 * states its limits from that operation's schema, the client checks the edit against it before
 * sending, and each part refused (before sending or by the API) shows why beside it, the outcome
 * beside the button pressed. Publishing publishes the audience's latest version, so it is offered only
 * when this draft is that version, after saving what is unsaved; an older draft offers to carry its
 * copy into the newer one instead.
 */
export function CopyEditor({ ids, version, latest, onSaved, onPublished, onStale }: CopyEditorProps) {
  const { client } = useSession();
  const saved = copyOf(version.content);
  const [copy, setCopy] = useState<Copy>(saved);
  // Another version opened, or this one saved: the form starts again from the copy as stored.
  useEffect(() => setCopy(copyOf(version.content)), [version.versionId, version.editedAt]);

  const edit = changedParts(saved, copy);
  const dirty = Object.keys(edit).length > 0;
  const isLatest = latest.versionId === version.versionId;
  const audiencePath = { params: { path: { page_id: ids.pageId, audience_id: ids.audienceId } } };
  const targets = linkTargets(version.content.actions);

  const act = useAction(async (action: 'save' | 'publish') => {
    if (dirty) onSaved(await saveEdit(client, ids, edit));
    if (action === 'save') return;
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
      {!isLatest && (
        <Superseded
          ids={ids}
          version={version}
          latest={latest}
          copy={copy}
          edited={dirty || !!version.editedAt}
        />
      )}
      <SubmitForm
        onSubmit={(pressed) => void act.run(pressed === 'publish' ? 'publish' : 'save')}
        {...outcomeOf(act, 'Saved: the preview shows the edit.')}
        operation="updateAudienceVersion"
      >
        <Field label="Headline" name="content/headline" hint="Plain text">
          {(control) => (
            <>
              <TextInput
                {...control}
                value={copy.headline}
                onValue={(headline) => setCopy({ ...copy, headline })}
              />
              <CharacterCount name="content/headline" text={copy.headline} />
            </>
          )}
        </Field>
        <Field label="Subheadline" name="content/subheadline" hint="Plain text, empty for none">
          {(control) => (
            <>
              <TextArea
                {...control}
                value={copy.subheadline}
                onValue={(subheadline) => setCopy({ ...copy, subheadline })}
              />
              <CharacterCount name="content/subheadline" text={copy.subheadline} />
            </>
          )}
        </Field>
        <Rows<Section>
          legend="Sections"
          noun="Section"
          name="content/sections"
          items={copy.sections}
          blank={BLANK_SECTION}
          movable
          onChange={(sections) => setCopy({ ...copy, sections })}
          hint="Shown in this order, below the headline."
        >
          {(section, update, index) => (
            <>
              <Field label="Heading" name={sectionPath(index, 'heading')} hint="Plain text">
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
                hint={
                  <>
                    Safe markdown: <code>**bold**</code>, <code>*italic*</code>, <code>- </code> lists, and
                    links to the page's actions only; no HTML.
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
          <Submit label="Save" value="save" pendingLabel="Saving…" disabled={!dirty} />
          {isLatest && (
            <Submit
              label={`${dirty ? 'Save and publish' : 'Publish'} version ${version.versionNumber}`}
              value="publish"
              pendingLabel="Publishing…"
              primary={false}
            />
          )}
          {dirty && (
            <button
              type="button"
              disabled={act.pending}
              onClick={() => {
                setCopy(saved);
                act.clear();
              }}
            >
              Undo changes
            </button>
          )}
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
