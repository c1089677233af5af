import type { FormSubmission } from '@tailor/client';
import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { Time } from '../../components/format.tsx';
import { type Choice, Field, Select } from '../../components/forms.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { PagedList } from '../../components/paged-list.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useLoad } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { type Session, useSession } from '../../session.tsx';
import { NamedLink, useNames } from './names.tsx';
import { Outcome } from './outcome.tsx';
import { Served } from './served.tsx';
import './leads.css';

const STATES = ['pending', 'enriched', 'failed'] as const;
type State = (typeof STATES)[number];

/**
 * What the list shows: the leads in one enrichment state, of one page, or all. Kept in the address
 * (`?enrichment=failed&pageId=…`), so the list can be reloaded, shared and linked to.
 */
interface LeadFilters {
  enrichment: State | '';
  pageId: string;
}

const OUTCOMES: Choice<State | ''>[] = [
  { value: '', label: 'Any outcome' },
  { value: 'enriched', label: 'Enriched: a person found' },
  { value: 'failed', label: 'Failed' },
  { value: 'pending', label: 'Pending' },
];

function isState(value: string | null): value is State {
  return STATES.some((state) => state === value);
}

function filtersFromSearch(search: string): LeadFilters {
  const query = new URLSearchParams(search);
  const enrichment = query.get('enrichment');
  return { enrichment: isState(enrichment) ? enrichment : '', pageId: query.get('pageId') ?? '' };
}

/** The address of the leads `filters` keeps. */
export function leadsHref(filters: Partial<LeadFilters>): string {
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value));
  return query.size > 0 ? `/leads?${query}` : '/leads';
}

function useLeadFilters(): [LeadFilters, (filters: LeadFilters) => void] {
  const [filters, setFilters] = useState(() => filtersFromSearch(location.search));
  const choose = (next: LeadFilters) => {
    const search = new URL(leadsHref(next), location.origin).search;
    history.replaceState(null, '', `${location.pathname}${search}`);
    setFilters(next);
  };
  return [filters, choose];
}

/** The pages to filter by: the 100 newest, and the one the address names should it be older. */
async function pageChoices({ client }: Session, pageId: string) {
  const { items } = await unwrap(client.GET('/v0/pages', { params: { query: { limit: 100 } } }));
  const choices = items.map((page) => ({ pageId: page.pageId, name: page.name }));
  if (pageId && !choices.some((choice) => choice.pageId === pageId)) {
    const page = await unwrap(client.GET('/v0/pages/{page_id}', { params: { path: { page_id: pageId } } }));
    choices.push({ pageId, name: page.name });
  }
  return choices;
}

/** Form submissions of the public pages, newest first, with who sent each as enrichment found out. */
export function LeadList() {
  const session = useSession();
  const names = useNames();
  const [filters, setFilters] = useLeadFilters();
  const pages = useLoad(() => pageChoices(session, filters.pageId), []);
  const filtered = Boolean(filters.enrichment || filters.pageId);
  return (
    <>
      <ViewHead title="Leads" />
      <p class="muted">
        Every form sent from a live page. Each address finds or makes its person: a company address links its
        company, a personal one (gmail.com and the like) makes a person without one. <em>Saw</em> is the page
        the visitor was shown: personalized (the published version) or the baseline (version 0) that a holdout
        is shown.
      </p>
      <search class="search">
        <Field label="Outcome" name="enrichment">
          {(control) => (
            <Select
              {...control}
              value={filters.enrichment}
              choices={OUTCOMES}
              onValue={(enrichment) => setFilters({ ...filters, enrichment })}
            />
          )}
        </Field>
        <Field label="Page" name="pageId">
          {(control) => (
            <Select
              {...control}
              value={filters.pageId}
              choices={[
                { value: '', label: 'Every page' },
                ...(pages.data ?? []).map((page) => ({ value: page.pageId, label: page.name })),
              ]}
              onValue={(pageId) => setFilters({ ...filters, pageId })}
            />
          )}
        </Field>
      </search>
      <ProblemMessage failure={pages.failure} />
      <PagedList<FormSubmission>
        caption="Leads"
        deps={[filters.enrichment, filters.pageId]}
        load={(cursor) =>
          unwrap(
            session.client.GET('/v0/form_submissions', {
              params: {
                query: {
                  cursor,
                  ...(filters.enrichment ? { enrichment: filters.enrichment } : {}),
                  ...(filters.pageId ? { pageId: filters.pageId } : {}),
                },
              },
            }),
          )
        }
        rowKey={(lead) => lead.formSubmissionId}
        // Enrichment runs in the background: the outcome shows up without a reload.
        live={(leads) => leads.some((lead) => lead.enrichment.state === 'pending')}
        empty={
          filtered ? 'No lead matches.' : 'No lead yet: the forms visitors send from live pages show here.'
        }
        columns={[
          {
            label: 'Email',
            cell: (lead) => (
              <Link href={`/leads/${lead.formSubmissionId}`}>{lead.email || 'no email given'}</Link>
            ),
          },
          {
            label: 'Page',
            cell: (lead) => (
              <NamedLink
                id={lead.pageId}
                name={() => names.page(lead.pageId)}
                href={`/pages/${lead.pageId}`}
                missing="page not found"
              />
            ),
          },
          { label: 'Saw', cell: (lead) => <Served lead={lead} names={names} /> },
          { label: 'Sent', cell: (lead) => <Time at={lead.submittedAt} /> },
          { label: 'Outcome', cell: (lead) => <Outcome lead={lead} names={names} /> },
        ]}
      />
    </>
  );
}
