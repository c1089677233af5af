import type { Api } from '../../http/types.ts';

export async function pageLinkRoutes(_api: Api): Promise<void> {}
