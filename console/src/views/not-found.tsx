import { ViewHead } from '../components/layout.tsx';
import { Link } from '../router.tsx';

export function NotFound() {
  return (
    <>
      <ViewHead title="Nothing here" />
      <p>
        The console has no view at this address. <Link href="/pages">Go to the pages</Link>.
      </p>
    </>
  );
}
