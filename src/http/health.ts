import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../db/connection.ts';
import { AppError } from '../shared/errors.ts';
import type { Api } from './types.ts';

const Status = Type.Object({ status: Type.String() }, { title: 'HealthStatus' });

/**
 * Liveness and readiness probes; they need no API key. Their error statuses (400, 414, 431, 503…)
 * are those of every operation, which the document adds (src/http/answers.ts).
 */
export async function healthRoutes(app: Api, database: Database): Promise<void> {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['Operations'],
        operationId: 'getHealth',
        summary: 'The process is up',
        description:
          'The process is up and serving HTTP; it does not look at the database (GET /readyz does). Needs no key.',
        security: [],
        response: { 200: Status },
      },
    },
    () => ({
      status: 'ok',
    }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Operations'],
        operationId: 'getReadiness',
        summary: 'The database is reachable',
        description: '503 `unavailable` while the database cannot be reached or the server is shutting down.',
        security: [],
        response: { 200: Status },
      },
    },
    async () => {
      try {
        await sql`SELECT 1`.execute(database.acrossTenants());
      } catch {
        throw new AppError('unavailable', 'The database is not reachable');
      }
      return { status: 'ready' };
    },
  );
}
