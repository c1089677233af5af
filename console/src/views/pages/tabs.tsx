import { Link } from '../../router.tsx';

/** The views of one page, as tabs under its heading: `path` follows /pages/{pageId}. */
const PAGE_TABS = [
  { label: 'Audiences', path: '' },
  { label: 'Analytics', path: '/analytics' },
];

export function PageTabs({ pageId, current }: { pageId: string; current: string }) {
  return (
    <nav aria-label="This page">
      <ul class="tabs">
        {PAGE_TABS.map((tab) => (
          <li key={tab.path}>
            <Link
              href={`/pages/${pageId}${tab.path}`}
              aria-current={tab.path === current ? 'page' : undefined}
            >
              {tab.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
