import type { Api } from '../../http/types.ts';

export async function pageRoutes(_api: Api): Promise<void> {}
