import type { Api } from '../http/types.ts';

/** Public pages at /p/{tenantSlug}/{path} and the tracking script. */
export async function pageRoutes(_app: Api): Promise<void> {}
