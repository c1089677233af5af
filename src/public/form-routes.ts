import type { Api } from '../http/types.ts';

/** POST /v0/public/forms: the action form of a public page. */
export async function formRoutes(_app: Api): Promise<void> {}
