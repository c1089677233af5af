import type { Api } from '../http/types.ts';

/** POST /v0/public/events: batches of session events from the tracking script. */
export async function eventRoutes(_app: Api): Promise<void> {}
