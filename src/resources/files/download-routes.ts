import type { Api } from '../../http/types.ts';

/** Signed, expiring download links: no API key, the signature is the credential. */
export async function fileDownloadRoutes(_app: Api): Promise<void> {}
