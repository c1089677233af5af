import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../db/connection.ts';
import { AppError } from '../shared/errors.ts';
import type { Api } from './types.ts';

const Status = Type.Object({ status: Type.String() });

/** Liveness and readiness probes; they need no API key. */
export async function healthRoutes(app: Api, database: Database): Promise<void> {
  app.get(
    '/healthz',
    { schema: { tags: ['Operations'], summary: 'The process is up', response: { 200: Status } } },
    () => ({
      status: 'ok',
    }),
  );

  app.get(
    '/readyz',
    { schema: { tags: ['Operations'], summary: 'The database is reachable', response: { 200: Status } } },
    async () => {
      try {
        await sql`SELECT 1`.execute(database.acrossTenants);
      } catch {
        throw new AppError('unavailable', 'The database is not reachable');
      }
      return { status: 'ready' };
    },
  );
}
