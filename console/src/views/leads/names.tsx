import { useMemo } from 'preact/hooks';
import { type TailorClient, unwrap } from '../../api.ts';
import { useLoad } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';

/**
 * The names of what leads point at (pages, audiences, persons, accounts), each asked of the API once
 * for the view however many leads share it. A name that cannot be read (erased, not found) is null.
 */
class Names {
  private readonly asked = new Map<string, Promise<string | null>>();

  constructor(private readonly client: TailorClient) {}

  page(pageId: string) {
    return this.once(`page ${pageId}`, async () => {
      const page = await unwrap(
        this.client.GET('/v0/pages/{page_id}', { params: { path: { page_id: pageId } } }),
      );
      return page.name;
    });
  }

  audience(pageId: string, audienceId: string) {
    return this.once(`audience ${audienceId}`, async () => {
      const audience = await unwrap(
        this.client.GET('/v0/pages/{page_id}/audiences/{audience_id}', {
          params: { path: { page_id: pageId, audience_id: audienceId } },
        }),
      );
      return audience.effectiveName;
    });
  }

  /** "version 3": what a lead's visitor saw, by its number. */
  version(pageId: string, audienceId: string, versionId: string) {
    return this.once(`version ${versionId}`, async () => {
      const version = await unwrap(
        this.client.GET('/v0/pages/{page_id}/audiences/{audience_id}/versions/{version_id}', {
          params: { path: { page_id: pageId, audience_id: audienceId, version_id: versionId } },
        }),
      );
      return `version ${version.versionNumber}`;
    });
  }

  person(personId: string) {
    return this.once(`person ${personId}`, async () => {
      const person = await unwrap(
        this.client.GET('/v0/persons/{person_id}', { params: { path: { person_id: personId } } }),
      );
      return person.name || person.email;
    });
  }

  account(accountId: string) {
    return this.once(`account ${accountId}`, async () => {
      const account = await unwrap(
        this.client.GET('/v0/accounts/{account_id}', { params: { path: { account_id: accountId } } }),
      );
      return account.name ?? account.domain;
    });
  }

  private once(key: string, read: () => Promise<string | null>): Promise<string | null> {
    let name = this.asked.get(key);
    if (!name) {
      name = read().catch(() => null);
      this.asked.set(key, name);
    }
    return name;
  }
}

export type { Names };

/** The names of one view, read again when it is opened again. */
export function useNames(): Names {
  const { client } = useSession();
  return useMemo(() => new Names(client), [client]);
}

interface NamedLinkProps {
  /** The name, as Names reads it. */
  name: () => Promise<string | null>;
  /** Names the request: the name is read again when it changes. */
  id: string;
  href: string;
  /** Said when the name cannot be read: "page not found". */
  missing: string;
}

/** A link to what `id` names, by its name (ids are never shown where a name exists). */
export function NamedLink({ name, id, href, missing }: NamedLinkProps) {
  const read = useLoad(name, [id]);
  if (read.data) return <Link href={href}>{read.data}</Link>;
  if (read.loading) return <span class="muted">Loading…</span>;
  return <span class="muted">{missing}</span>;
}
