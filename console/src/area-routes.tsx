import type { NavItem } from './components/layout.tsx';
import type { Route } from './routes.tsx';

/**
 * The views beyond pages and their links: a page's analytics and an audience's lift, persons and
 * accounts, brands, webhooks. ROUTES and NAV (routes.tsx) take these in after their own.
 */
export const AREA_ROUTES: Route[] = [];

export const AREA_NAV: NavItem[] = [];
