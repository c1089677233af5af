import { createHash, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { NoTables, OpenTransaction, TenantDb } from '../db/tenant-db.ts';
import { AppError } from '../shared/errors.ts';
import { stableStringify } from '../shared/stable-json.ts';
import {
  type Claim,
  claimKey,
  deleteExpired,
  findKey,
  type IdempotencyRow,
  releaseKey,
  renewClaim,
  retakeKey,
  type StoredResponse,
  saveResponse,
} from './idempotency-store.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: Idempotent | null;
  }
  interface FastifyContextConfig {
    /** A body field that carries an idempotency key for this route (besides the header). */
    idempotencyKeyField?: string;
    /** Top-level fields of this route's answer that hold a secret: a kept answer holds them masked. */
    secretFields?: string[];
  }
}

/** A request that holds an idempotency key: its claim, and the transaction its writes and its answer share. */
interface Idempotent {
  claim: Claim;
  /** The tenant's handle outside that transaction, which the claim itself is kept with. */
  outside: TenantDb;
  transaction: OpenTransaction<NoTables>;
  renewal: NodeJS.Timeout;
}

const KEPT_FOR_MS = 24 * 60 * 60 * 1000;
/** A request renews its claim this often while it runs, so that a long one is not taken for dead. */
const RENEW_EVERY_MS = 2_000;
/**
 * A claim not renewed for this long belongs to a process that died, and a retry takes it over. Were
 * the process only stalled, its request then commits nothing: its answer is kept only under its
 * own claim token, in the transaction of its writes.
 */
const ABANDONED_AFTER_MS = 10_000;
const HEADER = 'idempotency-key';
const KEPT_HEADERS = ['content-type', 'location'];

function keyOf(request: FastifyRequest): { scope: string; key: string } | undefined {
  const field = request.routeOptions.config.idempotencyKeyField;
  const fromBody = field ? (request.body as Record<string, unknown> | undefined)?.[field] : undefined;
  if (typeof fromBody === 'string') return { scope: `body:${field}`, key: fromBody };
  const header = request.headers[HEADER];
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header.join(',') : header;
  if (!/^[\x21-\x7e][\x20-\x7e]{0,254}$/.test(key)) {
    throw new AppError(
      'validation_failed',
      'The Idempotency-Key header must be 1 to 255 printable ASCII characters',
      [{ path: '/headers/idempotency-key', message: 'must be 1 to 255 printable ASCII characters' }],
    );
  }
  return { scope: 'header', key };
}

function fingerprintOf(request: FastifyRequest): string {
  const hash = createHash('sha256').update(`${request.method} ${request.url}\n`);
  // Raw uploads are hashed as bytes: serialising a large Buffer as JSON would block the server.
  const body = request.body;
  return (Buffer.isBuffer(body) ? hash.update(body) : hash.update(stableStringify(body ?? null))).digest(
    'hex',
  );
}

function replay(reply: FastifyReply, row: IdempotencyRow): FastifyReply {
  return reply
    .code(row.status_code ?? 200)
    .headers(JSON.parse(row.response_headers ?? '{}') as Record<string, string>)
    .header('Idempotent-Replayed', 'true')
    .send(row.response_body ?? '');
}

async function begin(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const id = keyOf(request);
  if (!id) return undefined;
  const db = request.tenantDb;
  const fingerprint = fingerprintOf(request);
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = Date.now();
    const claim: Claim = { ...id, token: randomUUID() };
    const row: IdempotencyRow = {
      scope: id.scope,
      key: id.key,
      fingerprint,
      status_code: null,
      response_body: null,
      response_headers: null,
      locked_at: now,
      expires_at: now + KEPT_FOR_MS,
      claim_token: claim.token,
    };
    if (await claimKey(db, row)) return hold(request, claim);
    const existing = await findKey(db, id.scope, id.key);
    if (!existing) continue;
    if (existing.expires_at <= now) {
      await deleteExpired(db, id.scope, id.key, now);
      continue;
    }
    if (existing.fingerprint !== fingerprint) {
      throw new AppError(
        'idempotency_key_reused',
        `Idempotency key "${id.key}" was already used with a different request; use a new key for a new request`,
      );
    }
    if (existing.status_code !== null) return replay(reply, existing);
    if (now - existing.locked_at > ABANDONED_AFTER_MS && (await retakeKey(db, existing, claim, now))) {
      return hold(request, claim);
    }
    throw new AppError(
      'conflict',
      `A request with idempotency key "${id.key}" is still in progress; retry shortly`,
    );
  }
  throw new AppError('conflict', `Idempotency key "${id.key}" is changing hands; retry shortly`);
}

/**
 * The request runs holding its claim: its statements go to a transaction that begins with its
 * first write, and the claim is renewed until the answer is kept.
 */
function hold(request: FastifyRequest, claim: Claim): undefined {
  const outside = request.tenantDb;
  const transaction = outside.deferredTransaction();
  const renewal = setInterval(() => {
    renewClaim(outside, claim, Date.now()).catch((error: unknown) =>
      request.log.warn({ err: error }, 'idempotency claim not renewed'),
    );
  }, RENEW_EVERY_MS).unref();
  request.idempotency = { claim, outside, transaction, renewal };
  request.tenantDb = transaction.db;
  return undefined;
}

/** A secret as a kept answer holds it: its prefix (`whsec_`) and an asterisk for every other character. */
function masked(secret: string): string {
  const prefix = /^[a-z]+_/.exec(secret)?.[0] ?? '';
  return prefix + '*'.repeat(secret.length - prefix.length);
}

function keptAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown): StoredResponse {
  const headers = reply.getHeaders();
  const kept = Object.fromEntries(
    KEPT_HEADERS.filter((name) => headers[name] !== undefined).map((name) => [name, String(headers[name])]),
  );
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : '';
  const secrets = request.routeOptions.config.secretFields ?? [];
  if (secrets.length === 0 || body === '') return { statusCode: reply.statusCode, body, headers: kept };
  const fields = JSON.parse(body) as Record<string, unknown>;
  for (const field of secrets) {
    const value = fields[field];
    if (typeof value === 'string') fields[field] = masked(value);
  }
  return { statusCode: reply.statusCode, body: JSON.stringify(fields), headers: kept };
}

/**
 * A success commits the request's writes with its answer, or neither: should that fail, the
 * client gets an error instead (503 when the database is away) and its retry runs again, or
 * replays the answer if the commit did happen after all.
 */
async function keepWithWrites(held: Idempotent, answer: () => StoredResponse): Promise<void> {
  try {
    if (!(await saveResponse(held.transaction.db, held.claim, answer()))) {
      throw new AppError(
        'conflict',
        `A retry took idempotency key "${held.claim.key}" over while this request ran; its answer stands`,
      );
    }
    await held.transaction.commit();
  } catch (error) {
    await held.transaction.rollback().catch(() => {});
    await releaseKey(held.outside, held.claim).catch(() => {});
    throw error;
  }
}

/**
 * An error answer changes nothing: what the request wrote is rolled back. A 4xx is kept as the
 * key's answer; after a server failure the key is given up, so that the client may retry it. After
 * a 503 (the database away or locked past its timeout) the answer does not wait for that release,
 * which would wait as long again: should it fail, the claim is taken over once abandoned.
 */
async function keepWithoutWrites(
  held: Idempotent,
  answer: () => StoredResponse,
  log: FastifyBaseLogger,
): Promise<void> {
  await held.transaction.rollback();
  const kept = answer();
  if (kept.statusCode < 500) {
    await saveResponse(held.outside, held.claim, kept);
    return;
  }
  const released = releaseKey(held.outside, held.claim);
  if (kept.statusCode !== 503) return released;
  released.catch((error: unknown) => log.warn({ err: error }, 'idempotency key not released'));
}

/** Ends the request's transaction, whatever happens: an open one would hold SQLite's writer for good. */
async function settle(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
  const held = request.idempotency;
  if (!held) return;
  request.idempotency = null;
  clearInterval(held.renewal);
  const answer = () => keptAnswer(request, reply, payload);
  if (reply.statusCode < 400) {
    await keepWithWrites(held, answer).catch((error: unknown) => {
      // The error answer takes the success's place, and names no object that was not made.
      reply.removeHeader('location');
      throw error;
    });
    return;
  }
  // The error answer stands when it cannot be kept (the database went away meanwhile): the claim
  // left behind is taken over once abandoned, and the retry runs again.
  await keepWithoutWrites(held, answer, request.log).catch((error: unknown) =>
    request.log.warn({ err: error }, 'idempotency key not settled'),
  );
}

/**
 * Idempotent POSTs (the IETF Idempotency-Key draft): the first response to a key is kept 24 h per
 * tenant and replayed to a retry with the same request; a different request with the key is 422;
 * a retry while the first is still running is 409. The claim is a row with a unique key, so two
 * concurrent first uses never both run. The answer commits in the transaction of the request's
 * writes, so that a crash leaves either both (the retry replays) or neither (the retry runs).
 */
export function idempotentPosts(scope: FastifyInstance): void {
  scope.decorateRequest('idempotency', null);
  // Hooks of the routes that answer POST only, ahead of their own: other requests run none.
  scope.addHook('onRoute', (route) => {
    if (!(Array.isArray(route.method) ? route.method : [route.method]).includes('POST')) return;
    route.preHandler = [beginPost, ...hooksOf(route.preHandler)];
    route.onSend = [settleAnswer, ...hooksOf(route.onSend)];
  });
}

function hooksOf<Hook>(hooks: Hook | Hook[] | undefined): Hook[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

async function beginPost(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  if (request.method !== 'POST') return undefined;
  return begin(request, reply);
}

async function settleAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  await settle(request, reply, payload);
  return payload;
}
