import type { CurrentTenant } from '@tailor/client';
import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { clientFor, type TailorClient, unwrap } from './api.ts';

/**
 * Signing in is pasting an API key. It is kept in this tab's sessionStorage only (never a cookie,
 * never localStorage, never the URL) and sent as `x-api-key` by the typed client; closing the tab
 * signs out. A new tab asks the console's open tabs for it instead (below), so a link opened in a new
 * tab needs no second sign-in.
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

/**
 * The console's tabs talk over a BroadcastChannel, which reaches only tabs of this origin: a new tab
 * asks for the key and a signed-in tab answers it; a sign-out in one tab reaches every tab. The key
 * goes from one tab's memory to another's, never through storage that outlives the tabs.
 */
const CHANNEL = 'tailor.console';
/** How long a new tab listens for a signed-in tab's answer (it shows the sign-in form meanwhile). */
const ASK_MS = 400;

type TabMessage =
  | { type: 'ask'; id: string }
  | { type: 'key'; id: string; apiKey: string }
  | { type: 'signed-out' };

function isMessage(data: unknown): data is TabMessage {
  return typeof data === 'object' && data !== null && 'type' in data;
}

/** An id for one ask, so that only the tab that asked takes the answer. */
function askId(): string {
  return [...crypto.getRandomValues(new Uint32Array(4))].map((part) => part.toString(36)).join('');
}

/** The key of a signed-in tab of the console, or null when none answers in time (or tabs cannot talk). */
export function keyFromOpenTab(): Promise<string | null> {
  if (typeof BroadcastChannel === 'undefined') return Promise.resolve(null);
  const channel = new BroadcastChannel(CHANNEL);
  const id = askId();
  return new Promise((resolve) => {
    const done = (apiKey: string | null) => {
      clearTimeout(timer);
      channel.close();
      resolve(apiKey);
    };
    const timer = setTimeout(() => done(null), ASK_MS);
    channel.onmessage = ({ data }: MessageEvent) => {
      if (isMessage(data) && data.type === 'key' && data.id === id && typeof data.apiKey === 'string')
        done(data.apiKey);
    };
    channel.postMessage({ type: 'ask', id } satisfies TabMessage);
  });
}

/** A signed-in tab among the console's tabs. */
export interface OpenTab {
  /** Tells every other tab to sign out. */
  signOutEverywhere(): void;
  leave(): void;
}

/**
 * While this tab is signed in: answers every new tab's ask with the key it keeps, and calls
 * `onSignedOutElsewhere` when another tab signs out.
 */
export function joinTabs(onSignedOutElsewhere: () => void): OpenTab {
  if (typeof BroadcastChannel === 'undefined') return { signOutEverywhere() {}, leave() {} };
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = ({ data }: MessageEvent) => {
    if (!isMessage(data)) return;
    const apiKey = storedKey();
    if (data.type === 'ask' && apiKey)
      channel.postMessage({ type: 'key', id: data.id, apiKey } satisfies TabMessage);
    if (data.type === 'signed-out') onSignedOutElsewhere();
  };
  return {
    signOutEverywhere: () => channel.postMessage({ type: 'signed-out' } satisfies TabMessage),
    leave: () => channel.close(),
  };
}
