import { randomBytes } from 'node:crypto';
import type { Arm } from '../../shared/arm.ts';
import type { Signer } from '../../shared/signing.ts';

/**
 * Holdouts (decisions §8): a share of an audience's visitors is served the baseline. Which share a
 * visitor falls in is decided from a random visitor id the server keeps in a first-party cookie,
 * hashed with a server key and the audience: the split needs no stored state, a returning visitor
 * gets the same arm, and a visitor cannot choose or predict theirs.
 */

/** The cookie that holds the visitor id, set only on pages whose audience has a holdout. */
export const VISITOR_COOKIE = 'tailor_vid';
/** Long enough for an account-based campaign; browsers may cap it (Safari's ITP: 7 days). */
export const VISITOR_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;
const VISITOR_ID = /^[A-Za-z0-9_-]{22}$/;
const HOLDOUT_PURPOSE = 'holdout-arm';
const VISITOR_ORIGIN_PURPOSE = 'visitor-id-origin';

/** 128 random bits, base64url. */
export function newVisitorId(): string {
  return randomBytes(16).toString('base64url');
}

export function isVisitorId(value: string | undefined): value is string {
  return value !== undefined && VISITOR_ID.test(value);
}

/**
 * A visitor id as its cookie keeps it. On an origin where a sibling host could toss a cookie of the
 * same name (`origin`: a plain-http origin of the tenant's own), it carries a signature that binds it
 * to that origin, so that an id minted on another tenant's origin, or made up, is not taken.
 */
export function visitorCookieValue(signer: Signer, visitorId: string, origin: string | undefined): string {
  return origin === undefined
    ? visitorId
    : `${visitorId}.${signer.sign(VISITOR_ORIGIN_PURPOSE, `${origin}\0${visitorId}`)}`;
}

/** The visitor id of a cookie's value bound to `origin` (visitorCookieValue); undefined for any other. */
export function boundVisitorId(signer: Signer, value: string, origin: string): string | undefined {
  const [visitorId = '', signature = ''] = value.split('.');
  return signer.verify(VISITOR_ORIGIN_PURPOSE, `${origin}\0${visitorId}`, signature) ? visitorId : undefined;
}

/**
 * Where the visitor falls for this audience: a point in [0, 100) from the first 32 bits of an HMAC
 * of the audience and the visitor id. Each visitor keeps its point, so raising or lowering the
 * holdout moves only the visitors between the old and the new share.
 */
function splitPoint(signer: Signer, audienceId: string, visitorId: string): number {
  const digest = Buffer.from(signer.sign(HOLDOUT_PURPOSE, `${audienceId}\0${visitorId}`), 'base64url');
  return (digest.readUInt32BE(0) / 2 ** 32) * 100;
}

/** The arm a visitor is served: the baseline when its point falls under the holdout's share. */
export function armOf(signer: Signer, audienceId: string, visitorId: string, holdoutPercent: number): Arm {
  if (holdoutPercent <= 0) return 'personalized';
  return splitPoint(signer, audienceId, visitorId) < holdoutPercent ? 'baseline' : 'personalized';
}

/**
 * The arm a visitor of an audience is served, and the visitor id that decided it: with a holdout in
 * effect (`holdoutPercent` above 0), the id from their cookie when well-formed, else a new one;
 * without one every visitor is served the personalized arm and needs no id (and their cookie is not
 * read: `cookieVisitorId` reads it).
 */
export function visitorArm(
  signer: Signer,
  audience: { audienceId: string; holdoutPercent: number },
  cookieVisitorId: () => string | undefined,
): { arm: Arm; visitorId: string | undefined } {
  if (audience.holdoutPercent <= 0) return { arm: 'personalized', visitorId: undefined };
  const fromCookie = cookieVisitorId();
  const visitorId = isVisitorId(fromCookie) ? fromCookie : newVisitorId();
  return { arm: armOf(signer, audience.audienceId, visitorId, audience.holdoutPercent), visitorId };
}
