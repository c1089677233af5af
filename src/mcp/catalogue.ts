import { setTimeout as sleep } from 'node:timers/promises';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { type operations, type TailorClient, unwrap } from '@tailor/client';
import type { Json } from './operations.ts';

/** What a tool's own code may use: the typed client, and the call its operation alone would make. */
export interface ToolContext {
  client: TailorClient;
  call(args: Record<string, unknown>): Promise<unknown>;
  /** Tells the host how the call is getting on, when it asked to be told (a progress token). */
  progress(message: string): Promise<void>;
  /** Aborted when the host cancels the call. */
  signal: AbortSignal;
}

/**
 * What calling a tool does to the tenant, which its MCP annotations say:
 * - `read`: nothing (its operation is a GET, the only kind a read-only key may make);
 * - `create`: adds an object; the same call again answers the same object, for the call carries an
 *   Idempotency-Key made from its arguments (keys.ts);
 * - `change`: changes or replaces what is there (a field, the copy, what visitors are served); the
 *   same call again changes nothing more;
 * - `rewrite`: starts anew at each call (a new version written, one still being written cancelled).
 */
export type Effect = 'read' | 'create' | 'change' | 'rewrite';

/** Every tool acts on its tenant in Tailor alone: no tool reaches an open world. */
export const ANNOTATIONS: Record<Effect, ToolAnnotations> = {
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  create: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  change: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  rewrite: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
};

/**
 * One tool an agent sees. Its input schema is its operation's (parameters and body fields, from the
 * served document) and its output schema its operation's answer; its description says what it does
 * and when to use it, and the operation's own description follows it.
 */
export interface ToolSpec {
  name: string;
  operationId: keyof operations;
  description: string;
  effect: Effect;
  /** Where the tool's arguments differ from its operation's: some made optional, some added. */
  input?: { optional?: string[]; added?: Record<string, Json> };
  /** What the tool does in place of calling its operation with its arguments. */
  run?(context: ToolContext, args: Record<string, unknown>): Promise<unknown>;
}

/** The states of a version still being written (a pending one waits for another attempt). */
const WRITING = ['pending', 'queued', 'processing'];
/** How long wait_for_draft waits, in seconds: by default less than a host's usual 60 s per call. */
const WAIT = { default: 50, maximum: 300 };
const POLL_MS = 1_000;

/** The version `args` name, or the audience's latest when they name none. */
async function versionToWaitFor(client: TailorClient, args: Record<string, unknown>): Promise<string> {
  if (typeof args.version_id === 'string') return args.version_id;
  const path = { page_id: String(args.page_id), audience_id: String(args.audience_id) };
  const audience = await unwrap(
    client.GET('/v0/pages/{page_id}/audiences/{audience_id}', { params: { path } }),
  );
  return audience.latestVersion.versionId;
}

/** wait_for_draft: reads the version until it is written or the wait runs out, telling each state. */
async function waitForDraft(
  { client, call, progress, signal }: ToolContext,
  args: Record<string, unknown>,
): Promise<unknown> {
  const ids = { page_id: args.page_id, audience_id: args.audience_id };
  const versionId = await versionToWaitFor(client, args);
  const deadline = Date.now() + Number(args.timeoutSeconds ?? WAIT.default) * 1000;
  let told: string | undefined;
  for (;;) {
    const version = (await call({ ...ids, version_id: versionId })) as {
      state: string;
      versionNumber: number;
    };
    if (version.state !== told) {
      told = version.state;
      await progress(`Version ${version.versionNumber} is ${told}`);
    }
    const left = deadline - Date.now();
    if (!WRITING.includes(version.state) || left <= 0) return version;
    await sleep(Math.min(POLL_MS, left), undefined, { signal });
  }
}

export const CATALOGUE: ToolSpec[] = [
  {
    name: 'get_tenant',
    operationId: 'getTenant',
    effect: 'read',
    description:
      "Who you are: the tenant, where its public pages start (pagesUrl) and whether this API key is read-only. Use it to build a page link's public address or to check what you may do.",
  },
  {
    name: 'search_accounts',
    operationId: 'searchAccounts',
    effect: 'read',
    description:
      'Find companies (accounts) by part of their name or domain. Use it before making an audience for a whole company, to get its accountId.',
  },
  {
    name: 'get_account',
    operationId: 'getAccount',
    effect: 'read',
    description: 'Read one account (company) by its accountId.',
  },
  {
    name: 'find_persons',
    operationId: 'listPersons',
    effect: 'read',
    description:
      'Find persons by email (exact) or by part of their name or email (query); with neither, list them, newest first. Use it to get the personId of someone you want to make a page for.',
  },
  {
    name: 'get_person',
    operationId: 'getPerson',
    effect: 'read',
    description: 'Read one person by personId: name, email, company domain, phone, LinkedIn profile.',
  },
  {
    name: 'find_or_create_person',
    operationId: 'createPerson',
    effect: 'create',
    description:
      'Get the person with this email, or create them when there is none. Use it when you have a name and an email and need a personId; it never makes a duplicate of an email, and without an email the same call again answers the same person. Answers the person.',
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
    effect: 'read',
    description:
      'List pages, newest first, optionally by status or a part of their name or title; page on with cursor. Use it to browse; search_pages is quicker to find one by name.',
  },
  {
    name: 'search_pages',
    operationId: 'searchPages',
    effect: 'read',
    description:
      'Find pages whose name or title contains the query. Use it to get the pageId of a page you know by name.',
  },
  {
    name: 'get_page',
    operationId: 'getPage',
    effect: 'read',
    description:
      'Read one page: its context (what generation writes from), actions, widgets, brand and status.',
  },
  {
    name: 'create_page',
    operationId: 'createPage',
    effect: 'create',
    description:
      'Create a page (as a draft): the base that each audience gets its own personalized version of. pageContext is what the copy is written from; brandId names a brand profile (see list_brands). The same call again answers the same page: change an argument (its name) to make another.',
  },
  {
    name: 'publish_page',
    operationId: 'publishPage',
    effect: 'change',
    description: 'Publish a draft page: it is live from now on, and no tool takes it back.',
  },
  {
    name: 'list_brands',
    operationId: 'listBrands',
    effect: 'read',
    description:
      "List brand profiles: the header, footer, colors and voice of the pages whose brandId they are. Use it to pick a page's brandId.",
  },
  {
    name: 'get_brand',
    operationId: 'getBrand',
    effect: 'read',
    description: 'Read one brand profile by its brandId.',
  },
  {
    name: 'create_audience',
    operationId: 'createAudience',
    effect: 'create',
    description:
      'Make an audience on a page for one person (personId) or one company (accountId): Tailor starts writing a personalized version of the page for them at once. The new version is generating (status queued or processing); wait_for_draft waits for it and answers the draft. Give supplementaryContext to steer the copy. The same call again answers the same audience.',
  },
  {
    name: 'list_audiences',
    operationId: 'listAudiences',
    effect: 'read',
    description: "List a page's audiences, newest first, with each one's status and latest version.",
  },
  {
    name: 'find_audiences',
    operationId: 'listAllAudiences',
    effect: 'read',
    description:
      'List audiences across every page, optionally only those made for one person (personId) or one account (accountId). Use it to see which pages someone already has.',
  },
  {
    name: 'get_audience',
    operationId: 'getAudience',
    effect: 'read',
    description:
      "Read an audience: its status (queued and processing while a version is written, draft when it is ready to read and edit, published when it is live), its latest and published versions' ids, and its holdout.",
  },
  {
    name: 'update_audience',
    operationId: 'updateAudience',
    effect: 'change',
    description:
      'Change an audience: its name, overrides, supplementaryContext or holdoutPercent (the share of visitors shown the unpersonalized page, which is what lift is measured against). Makes no new version.',
  },
  {
    name: 'regenerate_audience',
    operationId: 'createAudienceVersion',
    effect: 'rewrite',
    description:
      "Write a new version of an audience's page from the audience as it is now (after update_audience changed its context, say); a version still being written is cancelled. Each call writes anew. Then wait_for_draft.",
  },
  {
    name: 'list_audience_versions',
    operationId: 'listAudienceVersions',
    effect: 'read',
    description: "List an audience's versions, newest first, with their state and content.",
  },
  {
    name: 'get_audience_version',
    operationId: 'getAudienceVersion',
    effect: 'read',
    description:
      "Read one version of an audience's page with its content (headline, subheadline, sections). The draft to read is the audience's latestVersion once its status is draft.",
  },
  {
    name: 'wait_for_draft',
    operationId: 'getAudienceVersion',
    effect: 'read',
    description: `Wait until a version of an audience's page is written, then answer it as get_audience_version does: use it after create_audience or regenerate_audience, instead of reading again and again. Without version_id it waits for the audience's latest version. It waits while the version's state is pending, queued or processing, at most timeoutSeconds, and tells the host each state as progress. Its state is draft when the copy is ready to read; cancelled when it will not be written; still queued, pending or processing when the wait ran out first: call it again.`,
    input: {
      optional: ['version_id'],
      added: {
        timeoutSeconds: {
          type: 'integer',
          minimum: 1,
          maximum: WAIT.maximum,
          default: WAIT.default,
          description: `How long to wait for the version, in seconds: ${WAIT.default} unless given, at most ${WAIT.maximum}`,
        },
      },
    },
    run: waitForDraft,
  },
  {
    name: 'edit_draft',
    operationId: 'updateAudienceVersion',
    effect: 'change',
    description:
      "Edit a draft version's copy: the headline, the subheadline or the sections (all of them, in order). Only a draft can be edited; the edit is checked like generated copy and a failing part comes back as a field error.",
  },
  {
    name: 'publish_audience',
    operationId: 'publishAudienceVersion',
    effect: 'change',
    description:
      "Publish an audience's latest version (a draft): its page links serve it from now on, in place of the version published before. Use it once the draft reads right.",
  },
  {
    name: 'list_page_links',
    operationId: 'listPageLinks',
    effect: 'read',
    description: "List page links (the public addresses of audiences' pages), optionally one audience's.",
  },
  {
    name: 'get_page_link',
    operationId: 'getPageLink',
    effect: 'read',
    description: 'Read one page link, with its public url.',
  },
  {
    name: 'create_page_link',
    operationId: 'createPageLink',
    effect: 'create',
    description:
      "Give an audience's page a public address: a path on the tenant's pages address (or one of its domains). The answer's url is what to send the person. The same call again answers the same link.",
  },
  {
    name: 'get_audience_analytics',
    operationId: 'getAudienceAnalytics',
    effect: 'read',
    description:
      "Session metrics of every audience of a page over a date range: sessions, bounces, clicks, conversions. Use it to compare a page's audiences.",
  },
  {
    name: 'get_lift',
    operationId: 'getAudienceLift',
    effect: 'read',
    description:
      "How much an audience's personalized page lifts conversion over the unpersonalized page shown to its holdout, with the decision it supports (personalized_wins, baseline_wins or keep_running). Needs a holdoutPercent above 0 (update_audience).",
  },
  {
    name: 'list_leads',
    operationId: 'listFormSubmissions',
    effect: 'read',
    description:
      "List the leads: form submissions on the public pages, newest first, optionally one page's or one audience's, with who they turned out to be (enrichment).",
  },
  {
    name: 'get_lead',
    operationId: 'getFormSubmission',
    effect: 'read',
    description: 'Read one form submission with its enrichment (the person and account it was matched to).',
  },
];
