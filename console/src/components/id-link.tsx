import type { PageLink } from '@tailor/client';
import { useEffect } from 'preact/hooks';
import { type TailorClient, unwrap } from '../api.ts';
// The directory finds an audience's page from the audience alone (the API answers no audience by its id).
import { useAudienceDirectory } from '../audience-directory.ts';
import { useLoad } from '../hooks.ts';
import { Link } from '../router.tsx';
import { useSession } from '../session.tsx';

/** The ids of things the console has a view of, as the API writes them (decisions §2: `<prefix>_<ulid>`). */
const LINKED_ID = /\b(?:person|account|page|topic|pagelink)_[a-z0-9]{26}\b/g;

/** A thing by its name and where the console shows it. */
interface Named {
  name: string;
  href: string;
}

const path = <K extends string>(key: K, id: string) => ({
  params: { path: { [key]: id } as Record<K, string> },
});

/** What a person, account, page or topic is called, and its view. */
async function named(client: TailorClient, id: string): Promise<Named> {
  const prefix = id.slice(0, id.lastIndexOf('_'));
  if (prefix === 'person') {
    const person = await unwrap(client.GET('/v0/persons/{person_id}', path('person_id', id)));
    return { name: person.name || (person.email ?? id), href: `/persons/${id}` };
  }
  if (prefix === 'account') {
    const account = await unwrap(client.GET('/v0/accounts/{account_id}', path('account_id', id)));
    return { name: account.name ?? account.domain, href: `/accounts/${id}` };
  }
  if (prefix === 'page') {
    const page = await unwrap(client.GET('/v0/pages/{page_id}', path('page_id', id)));
    return { name: page.name, href: `/pages/${id}` };
  }
  const topic = await unwrap(client.GET('/v0/topics/{topic_id}', path('topic_id', id)));
  return { name: topic.title, href: `/topics/${id}` };
}

/** Said while a name is read; the id itself once it cannot be (gone since, or not this key's). */
function Unnamed({ id, loading }: { id: string; loading: boolean }) {
  return loading ? <span class="muted">…</span> : <code>{id}</code>;
}

/** A thing by its name, linked to its view. */
function NamedLink({ id }: { id: string }) {
  const { client } = useSession();
  const thing = useLoad(() => named(client, id), [id]);
  if (thing.data) return <Link href={thing.data.href}>{thing.data.name}</Link>;
  return <Unnamed id={id} loading={thing.loading} />;
}

/** A page link by its path, linked to the audience it serves (whose view lists its links). */
function PageLinkLink({ id }: { id: string }) {
  const { client } = useSession();
  const link = useLoad(
    () => unwrap(client.GET('/v0/page_links/{page_link_id}', path('page_link_id', id))),
    [id],
  );
  if (!link.data) return <Unnamed id={id} loading={link.loading} />;
  return <PageLinkOf link={link.data} />;
}

function PageLinkOf({ link }: { link: PageLink }) {
  const directory = useAudienceDirectory([link.pageLinkId]);
  const { audienceId } = link.target;
  useEffect(() => directory.seek(audienceId), [directory, audienceId]);
  const target = directory.found.get(audienceId);
  if (!target) return <code>{link.path}</code>;
  return (
    <Link href={`/pages/${target.page.pageId}/audiences/${audienceId}`}>
      {link.path} ({target.page.name} › {target.audience.effectiveName})
    </Link>
  );
}

/** The id `id` as a link to what it names, by name. */
export function IdLink({ id }: { id: string }) {
  return id.startsWith('pagelink_') ? <PageLinkLink id={id} /> : <NamedLink id={id} />;
}

/**
 * `text` with each id of a thing the console shows turned into a link to it, by its name: "A person
 * with this email already exists: Sam Lee".
 */
export function WithIdLinks({ text }: { text: string }) {
  const parts: (string | { id: string })[] = [];
  let at = 0;
  for (const match of text.matchAll(LINKED_ID)) {
    parts.push(text.slice(at, match.index), { id: match[0] });
    at = match.index + match[0].length;
  }
  parts.push(text.slice(at));
  return (
    <>{parts.map((part) => (typeof part === 'string' ? part : <IdLink key={part.id} id={part.id} />))}</>
  );
}
