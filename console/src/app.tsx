import { useEffect, useRef, useState } from 'preact/hooks';
import { Layout } from './components/layout.tsx';
import { matchPath, navigate, usePath } from './router.tsx';
import { NAV, ROUTES } from './routes.tsx';
import {
  forgetKey,
  joinTabs,
  keyFromOpenTab,
  type OpenTab,
  type Session,
  SessionContext,
  signIn,
  storedKey,
} from './session.tsx';
import { NotFound } from './views/not-found.tsx';
import { SignIn } from './views/sign-in.tsx';

function CurrentView({ path }: { path: string }) {
  for (const route of ROUTES) {
    const params = matchPath(route.pattern, path);
    if (params) return route.view(params);
  }
  return <NotFound />;
}

/**
 * Signs in: back in from this tab's stored key, with the key of an open tab of the console (a link
 * opened in a new tab), or with a key pasted; then shows the view of the current path. Signing out
 * signs out every tab.
 */
export function App() {
  const path = usePath();
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(() => storedKey() !== null);
  const [notice, setNotice] = useState<string | null>(null);
  const [signedInHere, setSignedInHere] = useState(false);
  const tab = useRef<OpenTab | null>(null);

  const signOut = (message: string) => {
    forgetKey();
    setSession(null);
    setNotice(message);
  };
  const start = async (apiKey: string) => {
    const { client, tenant } = await signIn(apiKey, () =>
      signOut('Your key is no longer accepted (it may have been revoked). Sign in with another.'),
    );
    setNotice(null);
    setSession({
      client,
      tenant,
      readOnly: tenant.key.readOnly,
      signOut: () => {
        tab.current?.signOutEverywhere();
        signOut('You are signed out. Your key was removed from this tab and every other tab of the console.');
      },
    });
  };

  // Back in with this tab's own key; else the sign-in form shows at once, and an open tab's key,
  // should one answer, signs this tab in without it.
  useEffect(() => {
    const restore = async () => {
      const apiKey = storedKey() ?? (await keyFromOpenTab());
      if (apiKey) await start(apiKey).catch(() => signOut('Your key is no longer accepted. Sign in again.'));
    };
    void restore().finally(() => setRestoring(false));
  }, []);

  // A signed-in tab gives its key to new tabs, and follows a sign-out in any other.
  useEffect(() => {
    if (!session) return;
    const joined = joinTabs(() =>
      signOut('You signed out in another tab of the console, so this tab is signed out too.'),
    );
    tab.current = joined;
    return () => {
      joined.leave();
      tab.current = null;
    };
  }, [session]);

  useEffect(() => {
    if (session && path === '/') navigate('/pages', { replace: true });
  }, [session, path]);

  if (restoring)
    return (
      <main id="main">
        <p class="muted">Signing in…</p>
      </main>
    );
  if (!session) {
    const signInHere = async (apiKey: string) => {
      await start(apiKey);
      setSignedInHere(true);
    };
    return <SignIn onSignIn={signInHere} notice={notice} />;
  }
  return (
    <SessionContext.Provider value={session}>
      <Layout nav={NAV} path={path} focusOnMount={signedInHere}>
        <CurrentView path={path} />
      </Layout>
    </SessionContext.Provider>
  );
}
