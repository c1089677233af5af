import type { Database } from '../db/connection.ts';
import type { TenantDb } from '../db/tenant-db.ts';
import type { Arm } from '../shared/arm.ts';
import { BoundedLru } from '../shared/bounded-lru.ts';
import { invalidField } from '../shared/errors.ts';
import type { Signer } from '../shared/signing.ts';
import type { VisitorLimits } from './limits.ts';

const PURPOSE = 'public-token';
/** A page's token outlives any reasonable visit, and a tab left open for a day. */
export const TOKEN_VALID_MS = 7 * 24 * 60 * 60 * 1000;

/** What a public page's token names: the visitor reports sessions and forms against exactly these. */
export interface PageToken {
  tenantId: string;
  pageId: string;
  audienceId: string;
  pageLinkId: string;
  /** The arm the page was served in: its sessions count there. */
  arm: Arm;
  /** The version the page showed; null in a token signed before tokens named it. */
  versionId: string | null;
  /**
   * The holdout share in effect when the page was served, 0-50: how the arms split the audience's
   * visitors, which bounds each arm's share of one address's sessions toward lift. Absent from a
   * token signed before tokens named it.
   */
  holdoutPercent?: number;
  /** Epoch milliseconds after which the token is refused. */
  expiresAt: number;
}

interface Payload {
  t: string;
  p: string;
  a: string;
  l: string;
  e: number;
  /** Present, as 1, for the baseline arm only: the personalized arm's tokens stay as they were. */
  b?: 1;
  /**
   * The version shown, without the `version_` prefix every version id has (a token is sent with every
   * batch of events); absent from the tokens signed before it was added, which stay valid.
   */
  v?: string;
  /** The holdout share, absent from the tokens signed before it was added, which stay valid. */
  h?: number;
}

const VERSION_PREFIX = 'version_';

/** What a token is signed with: a page's claims, which name their version unless made as older tokens were. */
export type TokenInput = Omit<PageToken, 'versionId'> & Partial<Pick<PageToken, 'versionId'>>;

export function issueToken(signer: Signer, token: TokenInput): string {
  const payload: Payload = {
    t: token.tenantId,
    p: token.pageId,
    a: token.audienceId,
    l: token.pageLinkId,
    e: token.expiresAt,
    ...(token.arm === 'baseline' ? { b: 1 as const } : {}),
    ...(token.versionId ? { v: token.versionId.slice(VERSION_PREFIX.length) } : {}),
    ...(token.holdoutPercent === undefined ? {} : { h: token.holdoutPercent }),
  };
  const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${encoded}.${signer.sign(PURPOSE, encoded)}`;
}

/**
 * Tokens whose signature each signer has verified, with their claims. A token is the same for every
 * visitor of a link and arm (it is signed when the page is rendered), so a batch of events nearly
 * always brings one verified before: its HMAC and JSON are done once per token and process, not per
 * request. Only genuine tokens are kept, so forged ones cannot push them out; the expiry is checked
 * on every read. Bounded: 10,000 tokens, least recently read first out (a token is about 200 bytes).
 */
const verified = new WeakMap<Signer, BoundedLru<PageToken>>();
const VERIFIED_TOKENS = 10_000;
const VERIFIED_BYTES = 8 * 1024 * 1024;

/** The claims of a token `signer` signed, whatever its expiry; undefined when it is forged or altered. */
function claimsOf(signer: Signer, value: string): PageToken | undefined {
  let kept = verified.get(signer);
  if (!kept) {
    kept = new BoundedLru(VERIFIED_TOKENS, VERIFIED_BYTES);
    verified.set(signer, kept);
  }
  const known = kept.get(value);
  if (known) return known;
  const parts = value.split('.');
  // Exactly two parts: a token is one string, so that limits counted per token cannot be escaped
  // with a suffix its signature does not cover.
  if (parts.length !== 2) return undefined;
  const [encoded = '', signature = ''] = parts;
  if (!signer.verify(PURPOSE, encoded, signature)) return undefined;
  const payload = JSON.parse(Buffer.from(encoded, 'base64url').toString()) as Payload;
  const claims: PageToken = {
    tenantId: payload.t,
    pageId: payload.p,
    audienceId: payload.a,
    pageLinkId: payload.l,
    arm: payload.b === 1 ? 'baseline' : 'personalized',
    versionId: payload.v === undefined ? null : `${VERSION_PREFIX}${payload.v}`,
    expiresAt: payload.e,
    ...(payload.h === undefined ? {} : { holdoutPercent: payload.h }),
  };
  // The key and the claims' strings, about twice the token's length in all.
  kept.set(value, claims, 4 * value.length);
  return claims;
}

/** The token's claims, or undefined when it is forged, altered or expired. */
export function readToken(signer: Signer, value: string, now: number): PageToken | undefined {
  const claims = claimsOf(signer, value);
  return claims && claims.expiresAt > now ? claims : undefined;
}

/** What reads visitors' tokens: the signer that made them, and the database of their tenants. */
export interface TokenReader {
  signer: Signer;
  database: Database;
}

/** What the routes that take visitors' writes (events, forms) work with: their tokens, and their limits. */
export interface VisitorWrites extends TokenReader {
  visitorLimits: VisitorLimits;
}

/** A visitor request's token, and its tenant to work in; a 400 at /body/token when it is not valid. */
export function requireToken(
  { signer, database }: TokenReader,
  value: string,
): { token: PageToken; db: TenantDb } {
  const token = readToken(signer, value, Date.now());
  if (!token) throw invalidField('/body/token', 'is not a valid, unexpired page token');
  return { token, db: database.forTenant(token.tenantId) };
}
