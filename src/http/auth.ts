import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/connection.ts';
import type { TenantDb } from '../db/tenant-db.ts';
import { AppError } from '../shared/errors.ts';
import { clientKey } from './client-address.ts';
import type { RateLimit } from './rate-limit.ts';

/** Who is calling: the tenant and key an API key belongs to. */
export interface Caller {
  tenantId: string;
  keyId: string;
  readOnly: boolean;
}

/**
 * Finds the live key behind an API key, else throws invalid_api_key (the api-keys resource does
 * this): at once when it knows the key (no statement to wait for), else through a promise.
 */
export type Authenticate = (apiKey: string) => Caller | Promise<Caller>;

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
    /** The caller's tenant; set on every authenticated route before its handler runs. */
    tenantDb: TenantDb;
  }
}

const READ_METHODS = new Set(['GET', 'HEAD']);

function identify(authenticate: Authenticate, request: FastifyRequest): Caller | Promise<Caller> {
  const header = request.headers['x-api-key'];
  const apiKey = Array.isArray(header) ? header[0] : header;
  if (!apiKey) throw new AppError('missing_api_key', 'Send your API key in the x-api-key header');
  return authenticate(apiKey);
}

export interface ApiKeyOptions {
  database: Database;
  authenticate: Authenticate;
  /** Counts failed authentications per client IP: guessing keys is slowed down to this rate. */
  failures: RateLimit;
}

function isAuthenticationFailure(error: unknown): boolean {
  return error instanceof AppError && (error.code === 'missing_api_key' || error.code === 'invalid_api_key');
}

/**
 * Every route registered in `scope` after this needs a live API key; read-only keys may only read.
 * The key is looked at first, so that a valid key is never refused because other clients of its
 * address failed; only failures are counted per client IP, and past their limit they answer 429.
 */
export function requireApiKey(
  scope: FastifyInstance,
  { database, authenticate, failures }: ApiKeyOptions,
): void {
  scope.decorateRequest('caller', null);
  scope.decorateRequest('tenantDb', null as unknown as TenantDb);
  const admit = (request: FastifyRequest, caller: Caller) => {
    if (caller.readOnly && !READ_METHODS.has(request.method)) {
      throw new AppError('forbidden', 'This API key is read-only; it may only make GET requests');
    }
    request.caller = caller;
    request.tenantDb = database.forTenant(caller.tenantId);
  };
  const refuse = async (request: FastifyRequest, reply: FastifyReply, error: unknown): Promise<never> => {
    if (isAuthenticationFailure(error)) {
      reply.header('WWW-Authenticate', 'ApiKey header="x-api-key"');
      await failures.take(clientKey(request.ip), reply);
    }
    throw error;
  };
  // A known key is admitted without a promise: the hook waits only for a statement or a limit.
  scope.addHook('onRequest', (request, reply, done) => {
    let found: Caller | Promise<Caller>;
    try {
      found = identify(authenticate, request);
    } catch (error) {
      refuse(request, reply, error).catch(done);
      return;
    }
    if (!(found instanceof Promise)) {
      admit(request, found);
      done();
      return;
    }
    found
      .then(
        (caller) => admit(request, caller),
        (error: unknown) => refuse(request, reply, error),
      )
      .then(() => done(), done);
  });
}
