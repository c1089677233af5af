import type { Api } from '../../http/types.ts';

export async function assetRoutes(_api: Api): Promise<void> {}
