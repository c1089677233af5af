import fc from 'fast-check';
import { ID_PREFIXES } from '../../src/shared/ids.ts';
import type { Client } from '../helpers/server.ts';
import type { Credentials } from './requests.ts';
import type { Vocabulary } from './schema-arbitraries.ts';
import { Known, type Owner } from './values.ts';

/** Which of the two tenants: the fuzz always runs with exactly two. */
export type TenantIndex = 0 | 1;

/** Every id the service hands out is `<prefix>_<26 chars>`, with a prefix of src/shared/ids.ts. */
const ID_PATTERN = new RegExp(`\\b(?:${ID_PREFIXES.join('|')})_[0-9a-z]{26}\\b`, 'g');
/** Parameter names that do not spell their ids' prefix. */
const STEM_ALIASES: Record<string, string> = { subscription: 'whsub', formsubmission: 'form' };
/**
 * Ids the client chooses (an action's, a session's): drawn from a few shared values, so that a field
 * that refers to another (`headerActionId` to an `actionId`) sometimes finds it, and some collide.
 */
const CLIENT_IDS = ['demo-0001', 'demo-0002', 'demo-0003'];
/** Dates at the edges of what RFC 3339, the `+ms` form and a JavaScript Date can say. */
const EDGE_DATES = [
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '2016-12-31T23:59:60Z',
  '2024-02-30T00:00:00Z',
  '2024-01-01T00:00:00+14:00',
  '2024-01-01t00:00:00z',
  '2024-01-01',
  '+10',
  '+999999999999999',
  '+8640000000000001',
];
/** How many of each pool a run keeps: enough variety, while seeded values stay likely picks. */
const POOL_SIZE = 40;
/** The first entries of a pool (the seeded ones) are never dropped for newer ones. */
const KEPT = 8;

/** Adds `value` to a bounded pool, dropping the oldest entry after the kept ones when it is full. */
function addTo<T>(pool: T[], value: T): void {
  pool.push(value);
  if (pool.length > POOL_SIZE) pool.splice(KEPT, 1);
}

/**
 * The pool a field or parameter named `name` draws its values from, when its name says it holds an
 * id: `personId` and `person_id` → `id:person`, `logoAssetId` → `id:asset`, `brand_id` → `id:brand`.
 */
export function idPoolOf(name: string): string | undefined {
  const stem = /^(.+?)(?:_id|Id)$/.exec(name)?.[1]?.replaceAll('_', '').toLowerCase();
  if (!stem) return undefined;
  const aliased = STEM_ALIASES[stem] ?? stem;
  const prefix = ID_PREFIXES.filter((candidate) => aliased.endsWith(candidate)).sort(
    (a, b) => b.length - a.length,
  )[0];
  return `id:${prefix ?? aliased}`;
}

export function idsIn(text: string): string[] {
  return text.match(ID_PATTERN) ?? [];
}

/** Everything the run knows about one tenant: its client, real values to draw on, what it created. */
class TenantState {
  readonly pools = new Map<string, string[]>();
  /** Sets of path parameter values that go together (a page and its audience and version). */
  readonly contexts: Record<string, string>[] = [];
  /** Addresses of the resources it created, for the cross-tenant sweep. */
  readonly created = new Set<string>();
  /** The x-api-key each kind of credentials sends (none for `none`). */
  readonly keys: Partial<Record<Credentials, string>>;

  constructor(readonly client: Client) {
    this.keys = { key: client.apiKey, wrong: 'tlr_not-a-key' };
  }

  add(pool: string, value: string): void {
    const values = this.pools.get(pool) ?? [];
    if (!values.includes(value)) addTo(values, value);
    this.pools.set(pool, values);
  }

  addContext(context: Record<string, string>): void {
    addTo(this.contexts, context);
  }
}

export interface Harvest {
  caller: TenantIndex;
  /** The operation's path template: a cursor is good for its list alone. */
  template: string;
  method: string;
  /** The path parameter values the request was sent with. */
  path: Record<string, string>;
  status: number;
  text: string;
  json: unknown;
  location: string | null;
  url: string;
}

/** The state of a fuzz run: two tenants, what each owns, and the real values requests draw on. */
export class World {
  readonly tenants: [TenantState, TenantState];
  private readonly owners = new Map<string, TenantIndex>();

  constructor(clients: [Client, Client]) {
    this.tenants = [new TenantState(clients[0]), new TenantState(clients[1])];
  }

  tenantOf(owner: Owner, caller: TenantIndex): TenantIndex {
    return owner === 'caller' ? caller : ((1 - caller) as TenantIndex);
  }

  /** The tenant that owns `id`, when the run has seen it handed out. */
  ownerOf(id: string): TenantIndex | undefined {
    return this.owners.get(id);
  }

  /** Records `id` as `tenant`'s, unless it is already known as someone's. */
  own(tenant: TenantIndex, id: string): void {
    if (this.owners.has(id)) return;
    this.owners.set(id, tenant);
    this.tenants[tenant].add(idPoolOf(`${id.slice(0, id.lastIndexOf('_'))}_id`) ?? 'id:other', id);
  }

  /** The string `known` stands for now, for a request made by `caller`. */
  resolve(known: Known, caller: TenantIndex): string {
    const tenant = this.tenants[this.tenantOf(known.owner, caller)];
    if (known.pool.startsWith('context:')) {
      const parameter = known.pool.slice('context:'.length);
      const names = [parameter, ...known.together];
      const contexts = tenant.contexts.filter((context) =>
        names.every((name) => context[name] !== undefined),
      );
      const value = contexts[known.index % Math.max(contexts.length, 1)]?.[parameter];
      if (value !== undefined) return value;
      return this.resolve(new Known(idPoolOf(parameter) ?? 'none', known.owner, known.index), caller);
    }
    const values = tenant.pools.get(known.pool) ?? [];
    return values[known.index % Math.max(values.length, 1)] ?? 'none';
  }

  /** Takes what a successful answer hands out: ids (now the caller's), cursors, public links, contexts. */
  harvest(answer: Harvest): void {
    if (answer.status < 200 || answer.status > 299) return;
    const tenant = this.tenants[answer.caller];
    for (const id of idsIn(answer.text)) this.own(answer.caller, id);
    for (const [key, value] of stringsIn(answer.json)) {
      if (key === 'nextCursor') tenant.add(cursorPool(answer.template), value);
      const link = /^https?:\/\/[^/]+(\/v0\/public\/[^\s]*)$/.exec(value)?.[1];
      if (link) tenant.add('link', link);
    }
    if (answer.method === 'GET') return;
    if (answer.location) tenant.created.add(answer.location);
    else if (answer.status === 201) tenant.created.add(answer.url);
    const context = { ...answer.path, ...this.idFields(answer.json) };
    if (Object.keys(context).length > Object.keys(answer.path).length) tenant.addContext(context);
  }

  /** The top-level `…Id` fields of a created resource, named as the path parameters that take them. */
  private idFields(json: unknown): Record<string, string> {
    if (json === null || typeof json !== 'object' || Array.isArray(json)) return {};
    const fields: Record<string, string> = {};
    for (const [key, value] of Object.entries(json)) {
      const parameter = key.endsWith('Id') ? parameterNameOf(key) : undefined;
      if (parameter && typeof value === 'string') fields[parameter] = value;
    }
    return fields;
  }

  /**
   * What requests to the operation at `template` draw on for fields and parameters whose name says
   * what they hold: real ids, tokens, the cursors of that list, ids the client chooses; and values for the few rules that
   * the schemas state only in prose (a domain, a date, a link's path).
   */
  vocabulary(localUrl: fc.Arbitrary<string>, template: string): Vocabulary {
    const seeded = new Set(this.tenants.flatMap((tenant) => [...tenant.pools.keys()]));
    const knownFrom = (pool: string) =>
      fc
        .tuple(fc.constantFrom<Owner>('caller', 'caller', 'caller', 'other'), fc.nat())
        .map(([owner, index]) => new Known(pool, owner, index));
    return {
      localUrl,
      known(name) {
        if (name === 'cursor') return knownFrom(cursorPool(template));
        if (name === 'token') return knownFrom('token');
        if (name === 'domain') return fc.domain();
        if (name.endsWith('Date')) {
          const when = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) });
          return fc.oneof(
            when.map((ms) => new Date(ms).toISOString()),
            when.map((ms) => `+${ms}`),
            fc.constantFrom(...EDGE_DATES),
          );
        }
        if (name === 'path')
          return fc.stringMatching(/^(\/[a-z0-9._~-]{1,16}){1,4}$/).map((path) => `/fuzz${path}`);
        const pool = idPoolOf(name);
        if (!pool) return undefined;
        return seeded.has(pool) ? knownFrom(pool) : fc.constantFrom(...CLIENT_IDS);
      },
    };
  }
}

function cursorPool(template: string): string {
  return `cursor ${template}`;
}

/** `personId` → `person_id`: the path parameter that takes what a response field holds. */
function parameterNameOf(field: string): string {
  return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function* stringsIn(value: unknown, key = ''): Generator<[string, string]> {
  if (typeof value === 'string') yield [key, value];
  else if (Array.isArray(value)) for (const item of value) yield* stringsIn(item, key);
  else if (value !== null && typeof value === 'object') {
    for (const [name, item] of Object.entries(value)) yield* stringsIn(item, name);
  }
}
