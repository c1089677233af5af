import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { Link } from '../router.tsx';
import { useSession, Writable } from '../session.tsx';

export interface NavItem {
  label: string;
  /** The console path of the area; the item is current for it and every path under it. */
  href: string;
}

interface LayoutProps {
  nav: NavItem[];
  path: string;
  /** Focus the view when it first shows (just signed in), not only after moves. */
  focusOnMount: boolean;
  children: ComponentChildren;
}

/** The frame of every signed-in view: skip link, header with the tenant and sign-out, navigation, main. */
export function Layout({ nav, path, focusOnMount, children }: LayoutProps) {
  const { tenant, readOnly, signOut } = useSession();
  const main = useRef<HTMLElement>(null);
  const firstRender = useRef(true);

  // After a move within the app, and after signing in, focus goes to the new view as it would
  // after a page load; a page load itself leaves focus to the browser (the skip link comes first).
  useEffect(() => {
    const mounting = firstRender.current;
    firstRender.current = false;
    if (mounting && !focusOnMount) return;
    window.scrollTo(0, 0);
    main.current?.focus();
  }, [path]);

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link class="product" href="/pages">
          Tailor
        </Link>
        <span class="tenant">
          {tenant.name}
          {readOnly && ' · read-only key'}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav class="nav" aria-label="Console">
        <ul>
          {nav.map((item) => (
            <li key={item.href}>
              <Link
                href={item.href}
                aria-current={path === item.href || path.startsWith(`${item.href}/`) ? 'page' : undefined}
              >
                {item.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

interface ViewHeadProps {
  title: string;
  /** Links back up, such as the page an audience belongs to. */
  trail?: ComponentChildren;
  /** Buttons beside the title (write controls go in a Writable). */
  children?: ComponentChildren;
}

/** A view's heading, which also names the browser tab. */
export function ViewHead({ title, trail, children }: ViewHeadProps) {
  useEffect(() => {
    document.title = `${title} · Tailor console`;
  }, [title]);
  return (
    <div>
      {trail && <p class="breadcrumbs">{trail}</p>}
      <div class="view-head">
        <h1>{title}</h1>
        {children && <div class="actions">{children}</div>}
      </div>
    </div>
  );
}

/** The link to a view that creates something: for keys that may write only. */
export function CreateLink({ href, children }: { href: string; children: ComponentChildren }) {
  return (
    <Writable>
      <Link class="button primary" href={href}>
        {children}
      </Link>
    </Writable>
  );
}
