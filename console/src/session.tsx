import type { CurrentTenant } from '@tailor/client';
import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { clientFor, type TailorClient, unwrap } from './api.ts';

/**
 * Signing in is pasting an API key. It is kept in this tab's sessionStorage only (never a cookie,
 * never the URL) and sent as `x-api-key` by the typed client; closing the tab signs out.
 */
const STORAGE_KEY = 'tailor.apiKey';

export interface Session {
  client: TailorClient;
  tenant: CurrentTenant;
  /** A read-only key: the console shows no control that writes. */
  readOnly: boolean;
  signOut: () => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}

export function storedKey(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/**
 * Checks `apiKey` with `GET /v0/tenant` and keeps it when it is accepted; a wrong key throws the
 * API's 401 problem. `onRefused` runs when a later answer is 401 (the key was revoked meanwhile).
 */
export async function signIn(
  apiKey: string,
  onRefused: () => void,
): Promise<{ client: TailorClient; tenant: CurrentTenant }> {
  const client = clientFor(apiKey);
  const tenant = await unwrap(client.GET('/v0/tenant'));
  sessionStorage.setItem(STORAGE_KEY, apiKey);
  client.use({
    onResponse({ response }) {
      if (response.status === 401) onRefused();
    },
  });
  return { client, tenant };
}

/** Its children only for a key that may write: a read-only console has no write control at all. */
export function Writable({ children }: { children: ComponentChildren }): ComponentChildren {
  return useSession().readOnly ? null : children;
}
