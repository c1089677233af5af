import './areas.css';
import type { NavItem } from './components/layout.tsx';
import type { Route } from './routes.tsx';
import { LiftView } from './views/analytics/lift.tsx';
import { PageAnalytics } from './views/analytics/page-analytics.tsx';

/**
 * The views beyond pages and their links: a page's analytics and an audience's lift, persons and
 * accounts, brands, webhooks. ROUTES and NAV (routes.tsx) take these in after their own.
 */
export const AREA_ROUTES: Route[] = [
  { pattern: '/pages/:pageId/analytics', view: ({ pageId = '' }) => <PageAnalytics pageId={pageId} /> },
  {
    pattern: '/pages/:pageId/audiences/:audienceId/lift',
    view: ({ pageId = '', audienceId = '' }) => <LiftView pageId={pageId} audienceId={audienceId} />,
  },
];

export const AREA_NAV: NavItem[] = [];
