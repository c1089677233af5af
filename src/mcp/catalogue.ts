import { type operations, type TailorClient, unwrap } from '@tailor/client';

/** What a tool's own code may use: the typed client, and the call its operation alone would make. */
export interface ToolContext {
  client: TailorClient;
  call(args: Record<string, unknown>): Promise<unknown>;
}

/**
 * One tool an agent sees. Its input schema is its operation's (parameters and body fields, from the
 * served document); its description says what it does and when to use it, and the operation's own
 * description follows it. A tool whose operation is not a GET is a write: read-only keys never see it.
 */
export interface ToolSpec {
  name: string;
  operationId: keyof operations;
  description: string;
  /** What the tool does in place of calling its operation with its arguments. */
  run?(context: ToolContext, args: Record<string, unknown>): Promise<unknown>;
}

/**
 * The curated tools: the product's tasks, named for an agent, not every operation of the API
 * (docs/agents.md says which are in and why). The marketer's loop runs through them: find a person
 * or an account, make an audience for a page, read and edit its draft, publish it, link it, read lift.
 */
export const CATALOGUE: ToolSpec[] = [
  {
    name: 'get_tenant',
    operationId: 'getTenant',
    description:
      "Who you are: the tenant, where its public pages start (pagesUrl) and whether this API key is read-only. Use it to build a page link's public address or to check what you may do.",
  },
  {
    name: 'search_accounts',
    operationId: 'searchAccounts',
    description:
      'Find companies (accounts) by part of their name or domain. Use it before making an audience for a whole company, to get its accountId.',
  },
  {
    name: 'get_account',
    operationId: 'getAccount',
    description: 'Read one account (company) by its accountId.',
  },
  {
    name: 'find_persons',
    operationId: 'listPersons',
    description:
      'Find persons by email (exact) or by part of their name or email (query); with neither, list them, newest first. Use it to get the personId of someone you want to make a page for.',
  },
  {
    name: 'get_person',
    operationId: 'getPerson',
    description: 'Read one person by personId: name, email, company domain, phone, LinkedIn profile.',
  },
  {
    name: 'find_or_create_person',
    operationId: 'createPerson',
    description:
      'Get the person with this email, or create them when there is none (without an email, always creates). Use it when you have a name and an email and need a personId; it never makes a duplicate of an email. Answers the person.',
    async run({ client, call }, args) {
      if (typeof args.email === 'string') {
        const { items } = await unwrap(
          client.GET('/v0/persons', { params: { query: { email: args.email } } }),
        );
        if (items[0]) return items[0];
      }
      return call(args);
    },
  },
  {
    name: 'list_pages',
    operationId: 'listPages',
    description:
      'List pages, newest first, optionally by status or a part of their name or title; page on with cursor. Use it to browse; search_pages is quicker to find one by name.',
  },
  {
    name: 'search_pages',
    operationId: 'searchPages',
    description:
      'Find pages whose name or title contains the query. Use it to get the pageId of a page you know by name.',
  },
  {
    name: 'get_page',
    operationId: 'getPage',
    description:
      'Read one page: its context (what generation writes from), actions, widgets, brand and status.',
  },
  {
    name: 'create_page',
    operationId: 'createPage',
    description:
      'Create a page (as a draft): the base that each audience gets its own personalized version of. pageContext is what the copy is written from; brandId names a brand profile (see list_brands).',
  },
  {
    name: 'publish_page',
    operationId: 'publishPage',
    description: 'Publish a draft page.',
  },
  {
    name: 'list_brands',
    operationId: 'listBrands',
    description:
      "List brand profiles: the header, footer, colors and voice of the pages whose brandId they are. Use it to pick a page's brandId.",
  },
  {
    name: 'get_brand',
    operationId: 'getBrand',
    description: 'Read one brand profile by its brandId.',
  },
  {
    name: 'create_audience',
    operationId: 'createAudience',
    description:
      'Make an audience on a page for one person (personId) or one company (accountId): Tailor starts writing a personalized version of the page for them at once. The new version is generating (status queued or processing); call get_audience until its status is draft, then read the draft with get_audience_version. Give supplementaryContext to steer the copy.',
  },
  {
    name: 'list_audiences',
    operationId: 'listAudiences',
    description: "List a page's audiences, newest first, with each one's status and latest version.",
  },
  {
    name: 'find_audiences',
    operationId: 'listAllAudiences',
    description:
      'List audiences across every page, optionally only those made for one person (personId) or one account (accountId). Use it to see which pages someone already has.',
  },
  {
    name: 'get_audience',
    operationId: 'getAudience',
    description:
      "Read an audience: its status (queued and processing while a version is written, draft when it is ready to read and edit, published when it is live), its latest and published versions' ids, and its holdout.",
  },
  {
    name: 'update_audience',
    operationId: 'updateAudience',
    description:
      'Change an audience: its name, overrides, supplementaryContext or holdoutPercent (the share of visitors shown the unpersonalized page, which is what lift is measured against). Makes no new version.',
  },
  {
    name: 'regenerate_audience',
    operationId: 'createAudienceVersion',
    description:
      "Write a new version of an audience's page from the audience as it is now (after update_audience changed its context, say). Like create_audience, wait for status draft.",
  },
  {
    name: 'list_audience_versions',
    operationId: 'listAudienceVersions',
    description: "List an audience's versions, newest first, with their state and content.",
  },
  {
    name: 'get_audience_version',
    operationId: 'getAudienceVersion',
    description:
      "Read one version of an audience's page with its content (headline, subheadline, sections). The draft to read is the audience's latestVersion once its status is draft.",
  },
  {
    name: 'edit_draft',
    operationId: 'updateAudienceVersion',
    description:
      "Edit a draft version's copy: the headline, the subheadline or the sections (all of them, in order). Only a draft can be edited; the edit is checked like generated copy and a failing part comes back as a field error.",
  },
  {
    name: 'publish_audience',
    operationId: 'publishAudienceVersion',
    description:
      "Publish an audience's latest version (a draft): its page links serve it from now on. Use it once the draft reads right.",
  },
  {
    name: 'list_page_links',
    operationId: 'listPageLinks',
    description: "List page links (the public addresses of audiences' pages), optionally one audience's.",
  },
  {
    name: 'get_page_link',
    operationId: 'getPageLink',
    description: 'Read one page link, with its public url.',
  },
  {
    name: 'create_page_link',
    operationId: 'createPageLink',
    description:
      "Give an audience's page a public address: a path on the tenant's pages address (or one of its domains). The answer's url is what to send the person.",
  },
  {
    name: 'get_audience_analytics',
    operationId: 'getAudienceAnalytics',
    description:
      "Session metrics of every audience of a page over a date range: sessions, bounces, clicks, conversions. Use it to compare a page's audiences.",
  },
  {
    name: 'get_lift',
    operationId: 'getAudienceLift',
    description:
      "How much an audience's personalized page lifts conversion over the unpersonalized page shown to its holdout, with the decision it supports (personalized_wins, baseline_wins or keep_running). Needs a holdoutPercent above 0 (update_audience).",
  },
  {
    name: 'list_leads',
    operationId: 'listFormSubmissions',
    description:
      "List the leads: form submissions on the public pages, newest first, optionally one page's or one audience's, with who they turned out to be (enrichment).",
  },
  {
    name: 'get_lead',
    operationId: 'getFormSubmission',
    description: 'Read one form submission with its enrichment (the person and account it was matched to).',
  },
];
