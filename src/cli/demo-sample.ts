import type { BrandInput } from '../resources/brands/schema.ts';
import type { PageCreate } from '../resources/pages/schema.ts';
import type { TopicEntryCreate } from '../resources/topics/schema.ts';
import type { Arm } from '../shared/arm.ts';

/**
 * The sample `tailor demo` makes: one company with two brands. Brightwave sells retail analytics;
 * Keelson, its sister brand, sells freight visibility to the same retailers. Each brand has its
 * profile, its own knowledge (topics) and its pages, and personalizes them for the people and
 * companies it sells to.
 */

export interface BrandSpec {
  brandId: string;
  profile: BrandInput;
  /** The colours of the wordmark made for its logo. */
  logo: { background: string; text: string };
}

export interface TopicSpec {
  title: string;
  purpose: string;
  brandIds: string[];
  entries: TopicEntryCreate['content'][];
}

export interface PersonSpec {
  key: string;
  name: string;
  email: string;
  account: { domain: string; name: string };
  linkedinProfileUrl?: string;
  /** A note a salesperson wrote about them: guidance for generation, never page copy. */
  note?: string;
}

export interface AudienceSpec {
  path: string;
  /** A person's key; an account's domain for a whole company; else a custom name for anyone. */
  person?: string;
  account?: string;
  customName?: string;
  context: string;
  /** How many visitor sessions the link gets when the demo makes it. */
  sessions: number;
  /** The share of the audience's visitors served the baseline, to measure lift. */
  holdoutPercent?: number;
  /**
   * How often an engaged visitor clicks the call to action, per arm, where this audience's page
   * converts otherwise than the sample's usual (src/cli/demo.ts): so that lift shows each decision.
   */
  ctaChance?: Record<Arm, number>;
  /** A visitor of the link fills in the form (with this person's address) when the demo makes it. */
  submitsForm?: boolean;
}

export interface PageSpec {
  page: PageCreate;
  audiences: AudienceSpec[];
}

const BRIGHTWAVE = 'https://brightwave.example';
const KEELSON = 'https://keelson.example';

export const BRANDS: BrandSpec[] = [
  {
    brandId: 'brightwave',
    profile: {
      name: 'Brightwave',
      website: BRIGHTWAVE,
      colors: { primary: '#4338ca', accent: '#06b6d4' },
      voice:
        'Confident and plain-spoken, for merchandisers and planners. Short sentences, concrete numbers. Avoid: synergy, leverage, game-changer.',
      footerText: 'Brightwave Analytics Ltd · 1 Market Street, Leeds · Retail analytics since 2016',
    },
    logo: { background: '#4338ca', text: '#ffffff' },
  },
  {
    brandId: 'keelson',
    profile: {
      name: 'Keelson',
      website: KEELSON,
      colors: { primary: '#0f766e', accent: '#f59e0b' },
      voice: 'Calm and exact, for supply-chain leads. Formal: no first names.',
      footerText: 'Keelson Freight Data Ltd · 12 Dock Road, Hull · Freight visibility for retailers',
    },
    logo: { background: '#0f766e', text: '#ffffff' },
  },
];

export const TOPICS: TopicSpec[] = [
  {
    title: 'How Brightwave works',
    purpose: 'What Brightwave does and for whom: draw on it for every page.',
    brandIds: ['brightwave'],
    entries: [
      {
        type: 'markdown',
        content:
          'Brightwave joins point-of-sale, e-commerce and inventory data into one live view of every store and channel, and tells merchandisers what to reorder, mark down or move.',
      },
      {
        type: 'text',
        content:
          'Connectors for Shopify, Salesforce Commerce Cloud, Lightspeed and 40 other systems; most retailers are live within two weeks.',
      },
      {
        type: 'text',
        content:
          'Teams moving off spreadsheets keep their own planning calendar and categories: Brightwave imports them on the first day.',
      },
    ],
  },
  {
    title: 'Forecasting',
    purpose: 'How good the forecasts are, and what planners do with them.',
    brandIds: ['brightwave'],
    entries: [
      {
        type: 'text',
        content: 'Forecasts are accurate to within 6% at store-and-SKU level after eight weeks of history.',
      },
      {
        type: 'markdown',
        content:
          'Markdown forecasting shows, a month ahead, which lines will not sell through at full price, so that **smaller, earlier markdowns** replace the end-of-season clearance.',
      },
    ],
  },
  {
    title: 'Customer results',
    purpose: 'Proof points: use the one closest to the visitor’s industry.',
    brandIds: ['brightwave'],
    entries: [
      {
        type: 'text',
        content:
          'A 120-store apparel chain cut end-of-season markdowns by 18% in its first year with Brightwave.',
      },
      {
        type: 'text',
        content: 'A regional grocer reduced fresh-food waste by 11% using daily store-level forecasts.',
      },
      {
        type: 'text',
        content:
          'An outdoor retailer raised online conversion by 9% by steering stock to its busiest regions.',
      },
    ],
  },
  {
    title: 'Shelf-gap alerts',
    purpose: 'For store teams: what Brightwave tells them before the doors open.',
    brandIds: ['brightwave'],
    entries: [
      {
        type: 'text',
        content:
          'Shelf-gap alerts tell store teams before opening which shelves will run empty that day, and what to bring from the back room.',
      },
      {
        type: 'text',
        content:
          'Alerts arrive on the store manager’s phone seven days a week, weekends included: nothing to log in to, no report to read.',
      },
    ],
  },
  {
    title: 'Plans and pilots',
    purpose: 'How Brightwave is sold; mention when the visitor is evaluating or asked about a pilot.',
    brandIds: ['brightwave'],
    entries: [
      {
        type: 'markdown',
        content:
          '**Growth**: up to 50 stores, weekly forecasts. **Scale**: unlimited stores, daily forecasts and a named analyst.',
      },
      {
        type: 'markdown',
        content:
          'Every plan starts with a **free 30-day pilot** on your own data, in as many stores as you choose.',
      },
    ],
  },
  {
    title: 'Freight visibility',
    purpose: 'What Keelson does: draw on it for every Keelson page.',
    brandIds: ['keelson'],
    entries: [
      {
        type: 'text',
        content:
          'Keelson tracks every inbound container and truck from the supplier’s dock to the store, and warns planners when a delay will leave a shelf empty.',
      },
      {
        type: 'text',
        content: 'Carrier data from 300 ocean, rail and road carriers, updated every fifteen minutes.',
      },
    ],
  },
  {
    title: 'Results with Keelson',
    purpose: 'Proof points for Keelson pages.',
    brandIds: ['keelson'],
    entries: [
      {
        type: 'text',
        content: 'A fashion retailer saw stock-outs from late shipments fall by 23% in two quarters.',
      },
      {
        type: 'markdown',
        content: 'Planners at a 35-store outdoor chain spend **six fewer hours a week** chasing carriers.',
      },
    ],
  },
];

export const PERSONS: PersonSpec[] = [
  {
    key: 'jane',
    name: 'Jane Cooper',
    email: 'jane.cooper@globex-retail.example',
    account: { domain: 'globex-retail.example', name: 'Globex Retail' },
    linkedinProfileUrl: 'https://www.linkedin.com/in/jane-cooper-demo',
    note: 'Budget approved for Q3; wants to see markdown numbers before the board meeting.',
  },
  {
    key: 'tom',
    name: 'Tom Becker',
    email: 'tom.becker@globex-retail.example',
    account: { domain: 'globex-retail.example', name: 'Globex Retail' },
  },
  {
    key: 'marcus',
    name: 'Marcus Lee',
    email: 'marcus.lee@initech-stores.example',
    account: { domain: 'initech-stores.example', name: 'Initech Stores' },
  },
  {
    key: 'priya',
    name: 'Priya Raman',
    email: 'priya@umbrella-outfitters.example',
    account: { domain: 'umbrella-outfitters.example', name: 'Umbrella Outfitters' },
  },
  {
    key: 'sofia',
    name: 'Sofia Alvarez',
    email: 'sofia.alvarez@northwind-grocers.example',
    account: { domain: 'northwind-grocers.example', name: 'Northwind Grocers' },
  },
];

function pageSpec(
  brandId: string,
  site: string,
  spec: Pick<PageCreate, 'name' | 'pageType' | 'pageContext'> & { description: string; cta: string },
): PageCreate {
  const brand = BRANDS.find((candidate) => candidate.brandId === brandId)?.profile.name ?? brandId;
  return {
    name: spec.name,
    pageType: spec.pageType,
    pageContext: spec.pageContext,
    brandId,
    actions: [
      {
        actionId: 'book-demo',
        buttonTitle: 'Book a demo',
        actionType: 'form',
        purpose: 'A 30-minute walk-through on your own data',
        url: '',
      },
      {
        actionId: 'pricing',
        buttonTitle: 'See plans',
        actionType: 'link',
        purpose: 'Plans and pricing',
        url: `${site}/pricing`,
      },
    ],
    headerActionId: 'book-demo',
    actionCardWidgets: [{ type: 'cta', title: spec.cta, logos: [] }],
    scripts: [],
    footerLinks: [
      {
        title: brand,
        links: [
          { text: 'About', url: `${site}/about` },
          { text: 'Privacy', url: `${site}/privacy` },
        ],
      },
    ],
    metadata: { title: `${spec.name} | ${brand}`, description: spec.description },
  };
}

export const PAGES: PageSpec[] = [
  {
    page: pageSpec('brightwave', BRIGHTWAVE, {
      name: 'Retail analytics platform',
      pageType: 'inbound',
      pageContext:
        'Brightwave shows retailers what sells where, and what to do about it: one live view of stores, e-commerce and stock, with forecasts that tell merchandisers what to reorder, mark down or move. Most retailers are live within two weeks.',
      description: 'One live view of every store and channel, with forecasts you can act on.',
      cta: 'Start a free 30-day pilot on your own data',
    }),
    audiences: [
      {
        path: '/platform',
        customName: 'Retail visitors',
        context: 'Anonymous visitors from retail; keep it general.',
        sessions: 1200,
        holdoutPercent: 20,
      },
      {
        path: '/platform/planners',
        customName: 'Planners from the newsletter',
        context: 'Merchandise planners from the newsletter; they care about forecast accuracy.',
        sessions: 300,
        holdoutPercent: 50,
        ctaChance: { personalized: 0.6, baseline: 0.15 },
      },
      {
        path: '/platform/store-managers',
        customName: 'Store managers',
        context: 'Store managers; they want less admin, not more dashboards.',
        sessions: 300,
        holdoutPercent: 50,
        ctaChance: { personalized: 0.15, baseline: 0.6 },
      },
      {
        path: '/platform/globex',
        person: 'jane',
        context:
          'Lead with customer results. She has no interest in shelf alerts: Globex runs 120 apparel stores and struggles with end-of-season markdowns. Keep it short, plain.',
        sessions: 6,
        submitsForm: true,
      },
      {
        path: '/platform/initech',
        person: 'marcus',
        context: 'Initech is moving from spreadsheets to a real planning tool this year.',
        sessions: 4,
      },
      {
        path: '/platform/umbrella',
        person: 'priya',
        context: 'Umbrella Outfitters sells outdoor gear online and in 35 stores.',
        sessions: 5,
      },
    ],
  },
  {
    page: pageSpec('brightwave', BRIGHTWAVE, {
      name: 'Holiday readiness review',
      pageType: 'outbound',
      pageContext:
        'A free review of your holiday stock plan: Brightwave’s analysts run last season through our forecasts and show where stock will run short or sit unsold, store by store, before the rush begins.',
      description: 'Find the gaps in your holiday stock plan before your customers do.',
      cta: 'Ask for your free holiday review',
    }),
    audiences: [
      {
        path: '/holiday/northwind',
        person: 'sofia',
        context: 'Northwind Grocers: fresh food, short shelf lives, 60 stores.',
        sessions: 5,
        submitsForm: true,
      },
      {
        path: '/holiday/globex',
        person: 'tom',
        context:
          'Tom runs the supply chain for Globex’s 40 stores; he cares about empty shelves, not dashboards. Stores restock at weekends.',
        sessions: 3,
      },
    ],
  },
  {
    page: pageSpec('brightwave', BRIGHTWAVE, {
      name: 'Your pilot plan',
      pageType: 'call_followup',
      pageContext:
        'Brightwave forecasts demand and markdowns for every store and SKU. A pilot on your own data shows the difference within weeks, and you decide with real numbers in hand.',
      description: 'Forecasts you can check against your own stores before you decide.',
      cta: 'Pick the stores for your pilot',
    }),
    audiences: [
      {
        path: '/follow-up/jane-cooper',
        person: 'jane',
        context: 'Call on Tuesday: Jane asked about markdown forecasting and a pilot in 10 stores.',
        sessions: 2,
      },
    ],
  },
  {
    page: pageSpec('keelson', KEELSON, {
      name: 'Freight visibility for retailers',
      pageType: 'sales_deck',
      pageContext:
        'Keelson shows where every shipment is and what its delay will do to your shelves. Planners act days earlier, and fewer stores run out.',
      description: 'Know which shelves a late shipment will empty, days before it does.',
      cta: 'See your own shipments in Keelson',
    }),
    audiences: [
      {
        path: '/keelson/initech',
        person: 'marcus',
        context: 'Initech imports most of its range from Asia; late containers are its biggest worry.',
        sessions: 3,
      },
      {
        path: '/keelson/umbrella',
        account: 'umbrella-outfitters.example',
        context: 'Outdoor gear, strongly seasonal; a late spring shipment costs them the season.',
        sessions: 2,
      },
    ],
  },
];
