import type { Database } from '../db/connection.ts';
import type { TenantDb } from '../db/tenant-db.ts';
import type { Arm } from '../resources/sessions/arm.ts';
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
}

export function issueToken(signer: Signer, token: PageToken): string {
  const payload: Payload = {
    t: token.tenantId,
    p: token.pageId,
    a: token.audienceId,
    l: token.pageLinkId,
    e: token.expiresAt,
    ...(token.arm === 'baseline' ? { b: 1 as const } : {}),
  };
  const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${encoded}.${signer.sign(PURPOSE, encoded)}`;
}

/** The token's claims, or undefined when it is forged, altered or expired. */
export function readToken(signer: Signer, value: string, now: number): PageToken | undefined {
  const parts = value.split('.');
  // Exactly two parts: a token is one string, so that limits counted per token cannot be escaped
  // with a suffix its signature does not cover.
  if (parts.length !== 2) return undefined;
  const [encoded = '', signature = ''] = parts;
  if (!signer.verify(PURPOSE, encoded, signature)) return undefined;
  const payload = JSON.parse(Buffer.from(encoded, 'base64url').toString()) as Payload;
  if (payload.e <= now) return undefined;
  return {
    tenantId: payload.t,
    pageId: payload.p,
    audienceId: payload.a,
    pageLinkId: payload.l,
    arm: payload.b === 1 ? 'baseline' : 'personalized',
    expiresAt: payload.e,
  };
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
