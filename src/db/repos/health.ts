import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.js';

/** The cheapest round trip to the database (readiness probe). */
export const pingDatabase = async (db: Kysely<DB>): Promise<void> => {
  await sql`SELECT 1`.execute(db);
};
