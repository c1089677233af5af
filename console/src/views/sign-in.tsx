import { useEffect, useState } from 'preact/hooks';
import { type Failure, failureOf } from '../api.ts';
import { Field, TextInput } from '../components/forms.tsx';

interface SignInProps {
  /** Checks the key; throws the API's problem when it is refused. */
  onSignIn: (apiKey: string) => Promise<void>;
  /** Why the console is asking again (signed out, key revoked). */
  notice: string | null;
}

/** A 401 from GET /v0/tenant: said plainly, with the API's own words below. */
function refusal(failure: Failure): Failure {
  if (failure.status !== 401) return failure;
  return {
    ...failure,
    title: 'This key was not accepted',
    detail: `${failure.detail}. Paste the whole key: it starts with tlr_.`,
  };
}

export function SignIn({ onSignIn, notice }: SignInProps) {
  const [apiKey, setApiKey] = useState('');
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, setPending] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · Tailor console';
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setPending(true);
    setFailure(null);
    try {
      await onSignIn(apiKey.trim());
    } catch (error) {
      setFailure(refusal(failureOf(error)));
      setPending(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <div class="card">
        <h1>Tailor console</h1>
        <p>Sign in with an API key of your tenant.</p>
        {notice && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        {failure && (
          <div class="problem" role="alert">
            <p>
              <strong>{failure.title}</strong>
            </p>
            <p>{failure.detail}</p>
          </div>
        )}
        <form onSubmit={submit}>
          <Field
            label="API key"
            name="apiKey"
            hint="The key the server printed on its first start, or one from npx tailor keys create. It is kept in this tab only, until you sign out or close it."
          >
            {(control) => (
              <TextInput
                {...control}
                type="password"
                autocomplete="off"
                spellcheck={false}
                required
                value={apiKey}
                onValue={setApiKey}
              />
            )}
          </Field>
          <button class="primary" type="submit" disabled={pending}>
            {pending ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      </div>
    </main>
  );
}
