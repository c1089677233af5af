import type { Api } from '../../http/types.ts';

export async function fileRoutes(_api: Api): Promise<void> {}
