import './areas.css';
import type { NavItem } from './components/layout.tsx';
import type { Route } from './router.tsx';
import { AccountDetail } from './views/accounts/detail.tsx';
import { AccountList } from './views/accounts/list.tsx';
import { LiftView } from './views/analytics/lift.tsx';
import { PageAnalytics } from './views/analytics/page-analytics.tsx';
import { BrandDetail } from './views/brands/detail.tsx';
import { EditBrand, NewBrand } from './views/brands/edit.tsx';
import { BrandList } from './views/brands/list.tsx';
import { LeadDetail } from './views/leads/detail.tsx';
import { LeadList } from './views/leads/list.tsx';
import { PersonDetail } from './views/persons/detail.tsx';
import { EditPerson, NewPerson } from './views/persons/edit.tsx';
import { PersonList } from './views/persons/list.tsx';
import { TopicDetail } from './views/topics/detail.tsx';
import { EditTopic, NewTopic } from './views/topics/edit.tsx';
import { TopicList } from './views/topics/list.tsx';
import { WebhookDetail } from './views/webhooks/detail.tsx';
import { WebhookList } from './views/webhooks/list.tsx';

/**
 * The views beyond pages and their links: a page's analytics and an audience's lift, leads, persons
 * and accounts, brands, topics, webhooks. ROUTES and NAV (routes.tsx) take these in after their own.
 */
export const AREA_ROUTES: Route[] = [
  { pattern: '/pages/:pageId/analytics', view: ({ pageId = '' }) => <PageAnalytics pageId={pageId} /> },
  {
    pattern: '/pages/:pageId/audiences/:audienceId/lift',
    view: ({ pageId = '', audienceId = '' }) => <LiftView pageId={pageId} audienceId={audienceId} />,
  },
  { pattern: '/leads', view: () => <LeadList /> },
  {
    pattern: '/leads/:formSubmissionId',
    view: ({ formSubmissionId = '' }) => <LeadDetail formSubmissionId={formSubmissionId} />,
  },
  { pattern: '/persons', view: () => <PersonList /> },
  { pattern: '/persons/new', view: () => <NewPerson /> },
  { pattern: '/persons/:personId', view: ({ personId = '' }) => <PersonDetail personId={personId} /> },
  { pattern: '/persons/:personId/edit', view: ({ personId = '' }) => <EditPerson personId={personId} /> },
  { pattern: '/accounts', view: () => <AccountList /> },
  { pattern: '/accounts/:accountId', view: ({ accountId = '' }) => <AccountDetail accountId={accountId} /> },
  { pattern: '/brands', view: () => <BrandList /> },
  { pattern: '/brands/new', view: () => <NewBrand /> },
  { pattern: '/brands/:brandId', view: ({ brandId = '' }) => <BrandDetail brandId={brandId} /> },
  { pattern: '/brands/:brandId/edit', view: ({ brandId = '' }) => <EditBrand brandId={brandId} /> },
  { pattern: '/topics', view: () => <TopicList /> },
  { pattern: '/topics/new', view: () => <NewTopic /> },
  { pattern: '/topics/:topicId', view: ({ topicId = '' }) => <TopicDetail topicId={topicId} /> },
  { pattern: '/topics/:topicId/edit', view: ({ topicId = '' }) => <EditTopic topicId={topicId} /> },
  { pattern: '/webhooks', view: () => <WebhookList /> },
  {
    pattern: '/webhooks/:subscriptionId',
    view: ({ subscriptionId = '' }) => <WebhookDetail subscriptionId={subscriptionId} />,
  },
];

export const AREA_NAV: NavItem[] = [
  { label: 'Leads', href: '/leads' },
  { label: 'Persons', href: '/persons' },
  { label: 'Accounts', href: '/accounts' },
  { label: 'Brands', href: '/brands' },
  { label: 'Topics', href: '/topics' },
  { label: 'Webhooks', href: '/webhooks' },
];
