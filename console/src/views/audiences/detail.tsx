import type { Audience, AudienceVersionWithContent } from '@tailor/client';
import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { ConfirmButton } from '../../components/confirm.tsx';
import { StatusBadge, Time } from '../../components/format.tsx';
import { outcomeOf, Submit, SubmitForm } from '../../components/forms.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { PagedList } from '../../components/paged-list.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useAction, useInterval, useLoad } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession, Writable } from '../../session.tsx';
import { LinkCreate, LinkList } from '../page-links/links.tsx';
import { LiveLink } from '../page-links/live.tsx';
import { GENERATING } from '../pages/detail.tsx';
import { BuiltInNote } from './built-in-note.tsx';
import { GenerationSteps, useGeneration } from './generate.tsx';
import { HoldoutField } from './holdout.tsx';

const LIVE_MS = 1500;
const STEPS = ['queued', 'processing', 'draft'] as const;

type AudienceAction = 'publish' | 'cancel';

interface Ids {
  pageId: string;
  audienceId: string;
}

/** Where the latest version stands on its way to draft, said as steps (a retry waits as "pending"). */
function Progress({ state }: { state: string }) {
  const at = state === 'pending' ? 0 : STEPS.indexOf(state as (typeof STEPS)[number]);
  return (
    <ol class="progress" aria-label="Generation progress">
      {STEPS.map((step, index) => (
        <li
          key={step}
          class={index < at ? 'done' : undefined}
          aria-current={index === at ? 'step' : undefined}
        >
          {step === 'queued' && state === 'pending' ? 'retrying' : step}
        </li>
      ))}
    </ol>
  );
}

export function AudienceDetail({ pageId, audienceId }: Ids) {
  const { client } = useSession();
  const path = { params: { path: { page_id: pageId, audience_id: audienceId } } };
  const audience = useLoad(
    () => unwrap(client.GET('/v0/pages/{page_id}/audiences/{audience_id}', path)),
    [audienceId],
  );
  const page = useLoad(
    () => unwrap(client.GET('/v0/pages/{page_id}', { params: { path: { page_id: pageId } } })),
    [pageId],
  );
  const [versionsShown, setVersionsShown] = useState(0);
  // Changes when a link of the audience is made or deleted: the list and Open live page follow.
  const [linksMade, setLinksMade] = useState(0);
  const generating = audience.data ? GENERATING.has(audience.data.status) : false;

  // Live progress: while the latest version is being generated, the audience and its versions are
  // read again until it is a draft (or cancelled). The versions are read after the audience answers,
  // so the last round, which stops the polling, never shows a list older than the audience.
  useInterval(
    () => {
      void audience.reload().then(() => setVersionsShown((count) => count + 1));
    },
    LIVE_MS,
    generating,
  );

  const act = useAction(async (action: AudienceAction) => {
    audience.set(await unwrap(client.POST(`/v0/pages/{page_id}/audiences/{audience_id}/${action}`, path)));
    setVersionsShown((count) => count + 1);
  });
  const generation = useGeneration({ pageId, audienceId }, audience.data, (generated) => {
    audience.set(generated);
    setVersionsShown((count) => count + 1);
  });
  const archive = useAction(async () => {
    audience.set(await unwrap(client.DELETE('/v0/pages/{page_id}/audiences/{audience_id}', path)));
  });

  const data = audience.data;
  return (
    <>
      <ViewHead
        title={data?.effectiveName ?? 'Audience'}
        trail={
          <>
            <Link href="/pages">Pages</Link> ›{' '}
            <Link href={`/pages/${pageId}`}>{page.data?.name ?? 'Page'}</Link>
          </>
        }
      >
        {data && page.data && (
          <LiveLink page={page.data} audience={data} linksVersion={linksMade} class="button" />
        )}
        <Link class="button" href={`/pages/${pageId}/audiences/${audienceId}/lift`}>
          Lift
        </Link>
        {data && data.status !== 'archived' && (
          <Writable>
            {data.status === 'draft' && (
              <button type="button" class="primary" disabled={act.pending} onClick={() => act.run('publish')}>
                Publish version {data.latestVersion.versionNumber}
              </button>
            )}
            {generating ? (
              <button type="button" disabled={act.pending} onClick={() => act.run('cancel')}>
                Cancel generation
              </button>
            ) : (
              <button
                type="button"
                disabled={act.pending || generation.act.pending}
                onClick={() => void generation.act.run('start')}
              >
                Generate a new version
              </button>
            )}
            <ConfirmButton
              label="Archive"
              question="Archive it for good?"
              confirm="Yes, archive"
              pending={archive.pending}
              onConfirm={() => void archive.run()}
            />
          </Writable>
        )}
      </ViewHead>
      <ProblemMessage failure={audience.failure ?? act.failure ?? archive.failure} />
      <GenerationSteps ids={{ pageId, audienceId }} generation={generation} />
      {data && <AudienceFacts audience={data} />}
      {data && data.status !== 'archived' && (
        <Writable>
          <HoldoutForm ids={{ pageId, audienceId }} audience={data} onSaved={audience.set} />
        </Writable>
      )}
      <section aria-labelledby="versions-heading">
        <h2 id="versions-heading">Versions</h2>
        <VersionList ids={{ pageId, audienceId }} version={versionsShown} audienceStatus={data?.status} />
      </section>
      <section aria-labelledby="links-heading">
        <h2 id="links-heading">Page links</h2>
        {data && data.status !== 'archived' && (
          <Writable>
            <LinkCreate audienceId={audienceId} onCreated={() => setLinksMade((count) => count + 1)} />
          </Writable>
        )}
        <LinkList
          audienceId={audienceId}
          version={linksMade}
          onRemoved={() => setLinksMade((count) => count + 1)}
        />
      </section>
    </>
  );
}

function AudienceFacts({ audience }: { audience: Audience }) {
  const generating = GENERATING.has(audience.status);
  return (
    <div class="card">
      <dl class="facts">
        <div>
          <dt>Latest version</dt>
          <dd>
            {audience.latestVersion.versionNumber} <StatusBadge status={audience.status} />
          </dd>
        </div>
        <div>
          <dt>Visitors see</dt>
          <dd>version {audience.publishedVersion.versionNumber}</dd>
        </div>
        <div>
          <dt>Holdout</dt>
          <dd>{audience.holdoutPercent} % see the baseline</dd>
        </div>
        <div>
          <dt>For</dt>
          <dd>
            <AudienceFor audience={audience} />
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Time at={audience.createdAt} />
          </dd>
        </div>
      </dl>
      {generating && (
        <div class="field" aria-live="polite">
          <p>Generating version {audience.latestVersion.versionNumber}…</p>
          <Progress state={audience.status} />
        </div>
      )}
    </div>
  );
}

/** Who the audience is for: the person, or everyone at the account, linked; or anyone. */
function AudienceFor({ audience }: { audience: Audience }) {
  if (audience.personId) return <Link href={`/persons/${audience.personId}`}>{audience.computedName}</Link>;
  if (audience.accountId)
    return (
      <>
        everyone at <Link href={`/accounts/${audience.accountId}`}>{audience.computedName}</Link>
      </>
    );
  return <>{audience.computedName} (anyone)</>;
}

function HoldoutForm({
  ids,
  audience,
  onSaved,
}: {
  ids: Ids;
  audience: Audience;
  onSaved: (a: Audience) => void;
}) {
  const { client } = useSession();
  const [holdoutPercent, setHoldout] = useState(audience.holdoutPercent);
  const save = useAction(async () => {
    onSaved(
      await unwrap(
        client.PATCH('/v0/pages/{page_id}/audiences/{audience_id}', {
          params: { path: { page_id: ids.pageId, audience_id: ids.audienceId } },
          body: { holdoutPercent },
        }),
      ),
    );
  });
  return (
    <SubmitForm
      class="card inline-form"
      onSubmit={() => void save.run()}
      {...outcomeOf(save)}
      operation="updateAudience"
    >
      <HoldoutField value={holdoutPercent} onValue={setHoldout} />
      <div class="actions">
        <Submit label="Save holdout" primary={false} disabled={holdoutPercent === audience.holdoutPercent} />
      </div>
    </SubmitForm>
  );
}

/**
 * Why a version ended as it did: a cancelled one's `generationNote` (generation gave up), or, without
 * one, that it was stopped; a draft's note says why the built-in personalizer wrote it.
 */
function VersionNote({ version }: { version: AudienceVersionWithContent }) {
  if (version.generationNote) return <p class="version-note">{version.generationNote}</p>;
  if (version.state === 'cancelled')
    return (
      <p class="version-note muted">Stopped before it was generated: cancelled, replaced or archived.</p>
    );
  return null;
}

/**
 * The versions are read again whenever the audience's status changes as well: the list and the
 * audience are read side by side, and the list may have been answered before the draft was written.
 */
function VersionList({
  ids,
  version,
  audienceStatus,
}: {
  ids: Ids;
  version: number;
  audienceStatus: string | undefined;
}) {
  const { client } = useSession();
  const previewHref = (item: AudienceVersionWithContent) =>
    `/pages/${ids.pageId}/audiences/${ids.audienceId}/versions/${item.versionId}`;
  return (
    <PagedList<AudienceVersionWithContent>
      caption="Versions"
      deps={[ids.audienceId, version, audienceStatus]}
      load={(cursor) =>
        unwrap(
          client.GET('/v0/pages/{page_id}/audiences/{audience_id}/versions', {
            params: { path: { page_id: ids.pageId, audience_id: ids.audienceId }, query: { cursor } },
          }),
        )
      }
      rowKey={(item) => item.versionId}
      empty="No version yet."
      columns={[
        {
          label: 'Version',
          cell: (item) => (item.versionNumber === 0 ? '0 (baseline)' : String(item.versionNumber)),
        },
        {
          label: 'State',
          cell: (item) => (
            <>
              <StatusBadge status={item.state} />
              {item.obsoleteAt && <span class="muted"> replaced</span>}
              <VersionNote version={item} />
              <BuiltInNote version={item} short />
            </>
          ),
        },
        { label: 'Queued', cell: (item) => <Time at={item.queuedAt ?? item.createdAt} /> },
        { label: 'Draft', cell: (item) => <Time at={item.becameDraftAt} /> },
        { label: 'Published', cell: (item) => <Time at={item.publishedAt} /> },
        {
          label: 'Ended',
          cell: (item) => <Time at={item.cancelledAt ?? item.obsoleteAt ?? item.archivedAt} />,
        },
        {
          label: 'Preview',
          cell: (item) =>
            item.content || item.versionNumber === 0 ? (
              <Link href={previewHref(item)}>Preview v{item.versionNumber}</Link>
            ) : (
              <span class="muted">
                {item.state === 'cancelled' ? 'never generated' : 'not generated yet'}
              </span>
            ),
        },
      ]}
    />
  );
}
