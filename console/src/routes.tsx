import { AREA_NAV, AREA_ROUTES } from './area-routes.tsx';
import type { NavItem } from './components/layout.tsx';
import type { Route } from './router.tsx';
import { AudienceDetail } from './views/audiences/detail.tsx';
import { NewAudience } from './views/audiences/new.tsx';
import { VersionPreview } from './views/audiences/preview.tsx';
import { PageLinks } from './views/page-links/list.tsx';
import { PageDetail } from './views/pages/detail.tsx';
import { EditPage, NewPage } from './views/pages/edit.tsx';
import { PageList } from './views/pages/list.tsx';

/**
 * Every view of the console: a path pattern (`:name` parts become the view's params) and what it
 * shows. The first pattern that matches wins, so `/pages/new` comes before `/pages/:pageId`.
 */
export const ROUTES: Route[] = [
  { pattern: '/pages', view: () => <PageList /> },
  { pattern: '/pages/new', view: () => <NewPage /> },
  { pattern: '/pages/:pageId', view: ({ pageId = '' }) => <PageDetail pageId={pageId} /> },
  { pattern: '/pages/:pageId/edit', view: ({ pageId = '' }) => <EditPage pageId={pageId} /> },
  { pattern: '/pages/:pageId/audiences/new', view: ({ pageId = '' }) => <NewAudience pageId={pageId} /> },
  {
    pattern: '/pages/:pageId/audiences/:audienceId',
    view: ({ pageId = '', audienceId = '' }) => <AudienceDetail pageId={pageId} audienceId={audienceId} />,
  },
  {
    pattern: '/pages/:pageId/audiences/:audienceId/versions/:versionId',
    view: ({ pageId = '', audienceId = '', versionId = '' }) => (
      <VersionPreview pageId={pageId} audienceId={audienceId} versionId={versionId} />
    ),
  },
  { pattern: '/page-links', view: () => <PageLinks /> },
  ...AREA_ROUTES,
];

/** The areas in the navigation bar. */
export const NAV: NavItem[] = [
  { label: 'Pages', href: '/pages' },
  { label: 'Page links', href: '/page-links' },
  ...AREA_NAV,
];
