import type { Audience, Page } from '@tailor/client';
import { unwrap } from '../../api.ts';
import { WebLink } from '../../components/format.tsx';
import { useLoad } from '../../hooks.ts';
import { useSession } from '../../session.tsx';

/** Why visitors see nothing of an audience at its links (docs/public-pages.md), or null when they do. */
function notServed(page: Page, audience: Audience): string | null {
  if (page.deletedAt) return 'page deleted';
  if (page.status !== 'published') return `page ${page.status}`;
  if (audience.status === 'archived') return 'audience archived';
  return null;
}

interface LiveLinkProps {
  page: Page;
  audience: Audience;
  /** Say why there is no live page (in a table); otherwise show nothing then. */
  explain?: boolean;
  /** Changes when a link of the audience was made or deleted, to look again. */
  linksVersion?: number;
  class?: string;
}

/**
 * "Open live page": the public address of the audience's newest live link, in a new tab, when
 * visitors are served there (its page published, the audience not archived).
 */
export function LiveLink({
  page,
  audience,
  explain = false,
  linksVersion = 0,
  class: className,
}: LiveLinkProps) {
  const { client } = useSession();
  const reason = notServed(page, audience);
  const links = useLoad(
    async () =>
      reason
        ? null
        : unwrap(
            client.GET('/v0/page_links', {
              params: { query: { audienceId: audience.audienceId, limit: 100 } },
            }),
          ),
    [audience.audienceId, reason, linksVersion],
  );
  const url = links.data?.items.find((link) => link.url !== null)?.url;
  if (url)
    return (
      <WebLink url={url} class={className}>
        Open live page<span class="visually-hidden"> of {audience.effectiveName} (opens in another tab)</span>
      </WebLink>
    );
  if (!explain || links.loading) return null;
  return <span class="muted">{reason ?? 'no link yet'}</span>;
}
