import type { Api } from '../../http/types.ts';

export async function topicRoutes(_api: Api): Promise<void> {}
