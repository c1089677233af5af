import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

export async function up(_db: Kysely<unknown>, _dialect: Dialect): Promise<void> {}
