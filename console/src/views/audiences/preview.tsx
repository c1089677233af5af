import { type Audience, type AudienceVersionWithContent, paginate } from '@tailor/client';
import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { Time } from '../../components/format.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useLoad } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { type Session, useSession } from '../../session.tsx';
import { LiveLink } from '../page-links/live.tsx';
import { BuiltInNote } from './built-in-note.tsx';
import { CopyEditor, type VersionIds } from './copy-editor.tsx';

/** The nonce this console's index.html was served with (src/http/console.ts). */
const STYLE_NONCE = document.querySelector<HTMLMetaElement>('meta[name="style-nonce"]')?.content ?? '';

/**
 * The preview endpoint needs the API key, which a frame's own request cannot send, so its HTML is
 * fetched and shown in a sandboxed `srcdoc` frame: no script, no form, no same-origin access. Such a
 * frame inherits the console's Content-Security-Policy, which allows only styles carrying this
 * page's nonce; the preview's <style> elements get it, and its one style attribute (the brand
 * colours on <html>) becomes a rule of its own. Nothing else changes but that no script is kept
 * (a preview has none) (docs/console.md).
 */
export function framedPreview(html: string): string {
  // Done before parsing: even a parsed document's styles are checked against this page's policy.
  const parsable = html
    .replace(/<style\b/gi, `<style nonce="${STYLE_NONCE}"`)
    .replace(/<html\b([^>]*)\sstyle=/i, '<html$1 data-root-style=');
  const preview = new DOMParser().parseFromString(parsable, 'text/html');
  const root = preview.documentElement;
  const rootStyle = root.dataset.rootStyle;
  root.removeAttribute('data-root-style');
  if (rootStyle) {
    const rule = preview.createElement('style');
    rule.setAttribute('nonce', STYLE_NONCE);
    rule.textContent = `:root{${rootStyle}}`;
    preview.head.append(rule);
  }
  for (const element of preview.querySelectorAll('script')) element.remove();
  return `<!doctype html>\n${root.outerHTML}`;
}

async function previewHtml({ client }: Session, { pageId, audienceId, versionId }: VersionIds) {
  const html = await unwrap(
    client.GET('/v0/pages/{page_id}/audiences/{audience_id}/versions/{version_id}/preview', {
      params: { path: { page_id: pageId, audience_id: audienceId, version_id: versionId } },
      parseAs: 'text',
    }),
  );
  return framedPreview(html);
}

interface FrameProps {
  ids: VersionIds;
  caption: string;
  /** When the version was last edited: the preview is fetched again after each edit. */
  editedAt?: string | null;
}

function VersionFrame({ ids, caption, editedAt }: FrameProps) {
  const session = useSession();
  const html = useLoad(() => previewHtml(session, ids), [ids.versionId, editedAt]);
  return (
    <figure>
      <figcaption>
        {caption}
        {editedAt && (
          <span class="muted">
            {' '}
            · Edited <Time at={editedAt} />
          </span>
        )}
      </figcaption>
      <ProblemMessage failure={html.failure} />
      {html.data !== undefined && <iframe title={`Preview: ${caption}`} sandbox="" srcdoc={html.data} />}
      {html.loading && html.data === undefined && <p class="muted">Loading the preview…</p>}
    </figure>
  );
}

/** Every version of the audience, newest first (the API pages them). */
async function allVersions({ client }: Session, pageId: string, audienceId: string) {
  const versions: AudienceVersionWithContent[] = [];
  for await (const version of paginate(client, '/v0/pages/{page_id}/audiences/{audience_id}/versions', {
    params: { path: { page_id: pageId, audience_id: audienceId }, query: { limit: 100 } },
  }))
    versions.push(version);
  return versions;
}

/** The page and the audience: their names lead back up to them, and the live page is theirs. */
async function pageAndAudience({ client }: Session, pageId: string, audienceId: string) {
  const [page, audience] = await Promise.all([
    unwrap(client.GET('/v0/pages/{page_id}', { params: { path: { page_id: pageId } } })),
    unwrap(
      client.GET('/v0/pages/{page_id}/audiences/{audience_id}', {
        params: { path: { page_id: pageId, audience_id: audienceId } },
      }),
    ),
  ]);
  return { page, audience };
}

/**
 * A version beside the baseline (version 0), as visitors would see each; a draft has its copy
 * editor beside it, for keys that may write (copy-editor.tsx).
 */
export function VersionPreview({ pageId, audienceId, versionId }: VersionIds) {
  const session = useSession();
  const versions = useLoad(() => allVersions(session, pageId, audienceId), [audienceId]);
  const context = useLoad(() => pageAndAudience(session, pageId, audienceId), [pageId, audienceId]);
  const [published, setPublished] = useState<Audience | null>(null);
  const version = versions.data?.find((candidate) => candidate.versionId === versionId);
  const baseline = versions.data?.find((candidate) => candidate.versionNumber === 0);
  const latest = versions.data?.[0];
  const audienceHref = `/pages/${pageId}/audiences/${audienceId}`;
  const ids = { pageId, audienceId, versionId };
  const draft =
    !session.readOnly && version?.state === 'draft' && !version.archivedAt && version.content
      ? { ...version, content: version.content }
      : null;
  const replace = (edited: AudienceVersionWithContent) =>
    versions.set((versions.data ?? []).map((item) => (item.versionId === edited.versionId ? edited : item)));
  return (
    <>
      <ViewHead
        title={version ? `Version ${version.versionNumber} beside the baseline` : 'Preview'}
        trail={
          <>
            <Link href={`/pages/${pageId}`}>{context.data?.page.name ?? 'Page'}</Link> ›{' '}
            <Link href={audienceHref}>{context.data?.audience.effectiveName ?? 'Audience'}</Link>
          </>
        }
      />
      <ProblemMessage failure={versions.failure} />
      {published && version?.state === 'published' && (
        <p class="notice" role="status">
          Version {published.publishedVersion.versionNumber} is published: visitors of this audience's{' '}
          <Link href={audienceHref}>page links</Link> see it now.{' '}
          {context.data && <LiveLink page={context.data.page} audience={published} />}
        </p>
      )}
      {version && <BuiltInNote version={version} />}
      {version && baseline && (
        <div class={draft && latest ? 'previews editing' : 'previews'}>
          {draft && latest && (
            <CopyEditor
              ids={ids}
              version={draft}
              latest={latest}
              onSaved={replace}
              onPublished={(audience) => {
                setPublished(audience);
                void versions.reload();
              }}
              onStale={() => void versions.reload()}
            />
          )}
          <VersionFrame
            ids={ids}
            caption={`Version ${version.versionNumber} (${version.state})`}
            editedAt={version.editedAt}
          />
          {version.versionId !== baseline.versionId && (
            <VersionFrame
              ids={{ pageId, audienceId, versionId: baseline.versionId }}
              caption="Version 0: the baseline"
            />
          )}
        </div>
      )}
    </>
  );
}
