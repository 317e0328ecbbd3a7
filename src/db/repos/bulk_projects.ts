// Many projects in few statements, for the benchmark's seed (`npm run bench`): rows only, no topics
// or memberships, in one transaction, a few hundred rows per INSERT.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';
import type { DB } from '../schema.js';
import type { NewProject } from './projects.js';

const BATCH = 500;

export async function insertProjectsBulk(db: Kysely<DB>, rows: NewProject[]): Promise<void> {
  await db.transaction().execute(async (tx) => {
    for (let i = 0; i < rows.length; i += BATCH) await tx.insertInto('projects').values(rows.slice(i, i + BATCH)).execute();
  });
  // What autovacuum (PostgreSQL) would do soon after such a load: fresh statistics for the planner,
  // and a visibility map so counts read the index alone.
  if (dialectOf(db) === 'postgres') await sql`VACUUM ANALYZE projects`.execute(db);
  else await sql`ANALYZE projects`.execute(db);
}

/** The id at a 1-based position in id order (a deep keyset cursor for the benchmark). */
export async function projectIdAtPosition(db: Kysely<DB>, position: number): Promise<number | undefined> {
  const r = await db.selectFrom('projects').select('id').orderBy('id').limit(1).offset(position - 1).executeTakeFirst();
  return r?.id;
}
