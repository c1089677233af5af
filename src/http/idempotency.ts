import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../shared/errors.ts';
import { stableStringify } from '../shared/stable-json.ts';
import {
  claimKey,
  deleteExpired,
  findKey,
  type IdempotencyRow,
  releaseKey,
  retakeKey,
  saveResponse,
} from './idempotency-store.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: { scope: string; key: string } | null;
  }
  interface FastifyContextConfig {
    /** A body field that carries an idempotency key for this route (besides the header). */
    idempotencyKeyField?: string;
  }
}

const KEPT_FOR_MS = 24 * 60 * 60 * 1000;
/** A claim this old whose request never answered belongs to a process that died. */
const ABANDONED_AFTER_MS = 60 * 1000;
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
    const claim: IdempotencyRow = {
      ...id,
      fingerprint,
      status_code: null,
      response_body: null,
      response_headers: null,
      locked_at: now,
      expires_at: now + KEPT_FOR_MS,
    };
    if (await claimKey(db, claim)) {
      request.idempotencyClaim = id;
      return undefined;
    }
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
    if (now - existing.locked_at > ABANDONED_AFTER_MS && (await retakeKey(db, existing, now))) {
      request.idempotencyClaim = id;
      return undefined;
    }
    throw new AppError(
      'conflict',
      `A request with idempotency key "${id.key}" is still in progress; retry shortly`,
    );
  }
  throw new AppError('conflict', `Idempotency key "${id.key}" is changing hands; retry shortly`);
}

async function settle(
  request: FastifyRequest,
  statusCode: number,
  payload: unknown,
  headers: Record<string, unknown>,
) {
  const claim = request.idempotencyClaim;
  if (!claim) return;
  request.idempotencyClaim = null;
  // A server failure is not an answer worth repeating: the client may retry the same key.
  if (statusCode >= 500) return releaseKey(request.tenantDb, claim.scope, claim.key);
  const kept = Object.fromEntries(
    KEPT_HEADERS.filter((name) => headers[name] !== undefined).map((name) => [name, String(headers[name])]),
  );
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : '';
  await saveResponse(request.tenantDb, claim.scope, claim.key, { statusCode, body, headers: kept });
}

/**
 * Idempotent POSTs (the IETF Idempotency-Key draft): the first response to a key is kept 24 h per
 * tenant and replayed to a retry with the same request; a different request with the key is 422;
 * a retry while the first is still running is 409. The claim is a row with a unique key, so two
 * concurrent first uses never both run.
 */
export function idempotentPosts(scope: FastifyInstance): void {
  scope.decorateRequest('idempotencyClaim', null);
  scope.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST') return;
    return begin(request, reply);
  });
  scope.addHook('onSend', async (request, reply, payload) => {
    // The answer stands when it cannot be kept (the database went away meanwhile): throwing here
    // would turn it into a 500. The claim left behind is retaken once abandoned.
    await settle(request, reply.statusCode, payload, reply.getHeaders()).catch((error: unknown) =>
      request.log.warn({ err: error }, 'idempotency key not settled'),
    );
    return payload;
  });
  scope.addHook('onResponse', async (request) => {
    const claim = request.idempotencyClaim;
    if (claim) await releaseKey(request.tenantDb, claim.scope, claim.key);
  });
}
