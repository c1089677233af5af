import type { ComponentChildren, JSX, PartialAnchorHTMLAttributes } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * Path routing under /console (the server answers index.html for every path there). A route is a
 * pattern such as `/pages/:pageId`; a view gets the `:names` as props.
 */

/** `/console`, as Vite's `base` sets it, without its trailing slash. */
const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');

export type Params = Record<string, string>;

/** A view of the console: its path pattern, and what it shows with the pattern's params. */
export interface Route {
  pattern: string;
  view: (params: Params) => JSX.Element;
}

function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return path === '' ? '/' : path;
}

const listeners = new Set<() => void>();

/** The console path (after /console) this tab shows; follows navigation and the back button. */
export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

/** Shows another console path; `replace` leaves no history entry (after a redirect, a creation). */
export function navigate(to: string, { replace = false } = {}): void {
  if (replace) history.replaceState(null, '', BASE + to);
  else history.pushState(null, '', BASE + to);
  for (const listener of listeners) listener();
}

/** The params of `path` when it matches `pattern`, else null. */
export function matchPath(pattern: string, path: string): Params | null {
  const want = pattern.split('/');
  const got = path.replace(/\/$/, '').split('/');
  if (want.length !== got.length) return null;
  const params: Params = {};
  for (const [index, part] of want.entries()) {
    const value = got[index] ?? '';
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return null;
  }
  return params;
}

type LinkProps = Omit<PartialAnchorHTMLAttributes<HTMLAnchorElement>, 'href' | 'role'> & {
  /** A console path such as `/pages`. */
  href: string;
  children: ComponentChildren;
};

/** An ordinary link (it opens in a new tab as usual) that moves within the app without a reload. */
export function Link({ href, children, ...rest }: LinkProps) {
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a {...rest} href={BASE + href} onClick={onClick}>
      {children}
    </a>
  );
}
