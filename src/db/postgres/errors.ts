import type { ErrorClassifier } from '../engine.ts';

const NETWORK_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/**
 * Connection exceptions (08), too many connections (53300), shutdown and startup (57P01–57P03), and
 * a statement ended by statement_timeout (57014): the database did not answer in time.
 */
const POSTGRES_UNAVAILABLE = /^(08...|53300|57014|57P0[123])$/;
/** What node-postgres says, without a code, about a connection that broke or never came. */
const CONNECTION_LOST =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|Client was closed/i;

/** PostgreSQL's SQLSTATE codes (23505: unique violation), and node-postgres's and the network's errors. */
export const postgresErrors: ErrorClassifier = {
  isUniqueViolation(error) {
    return (error as { code?: unknown })?.code === '23505';
  },
  isUnavailable(error) {
    if (!(error instanceof Error)) return false;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_ERRORS.has(code) || POSTGRES_UNAVAILABLE.test(code)))
      return true;
    return CONNECTION_LOST.test(error.message);
  },
};
