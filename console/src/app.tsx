import { useEffect, useState } from 'preact/hooks';
import { Layout } from './components/layout.tsx';
import { matchPath, navigate, usePath } from './router.tsx';
import { NAV, ROUTES } from './routes.tsx';
import { forgetKey, type Session, SessionContext, signIn, storedKey } from './session.tsx';
import { NotFound } from './views/not-found.tsx';
import { SignIn } from './views/sign-in.tsx';

function CurrentView({ path }: { path: string }) {
  for (const route of ROUTES) {
    const params = matchPath(route.pattern, path);
    if (params) return route.view(params);
  }
  return <NotFound />;
}

/** Signs in (or back in, from this tab's stored key), then shows the view of the current path. */
export function App() {
  const path = usePath();
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(() => storedKey() !== null);
  const [notice, setNotice] = useState<string | null>(null);
  const [signedInHere, setSignedInHere] = useState(false);

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
      signOut: () => signOut('You are signed out. Your key was removed from this tab.'),
    });
  };

  useEffect(() => {
    const apiKey = storedKey();
    if (!apiKey) return;
    start(apiKey)
      .catch(() => signOut('Your stored key is no longer accepted. Sign in again.'))
      .finally(() => setRestoring(false));
  }, []);

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
