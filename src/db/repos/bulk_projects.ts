// Many projects in few statements, for the benchmark's seed (`npm run bench`): rows only, no topics
// or memberships, in one transaction, a few hundred rows per INSERT.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { NewProject } from './projects.js';

const BATCH = 500;

export async function insertProjectsBulk(db: Kysely<DB>, rows: NewProject[]): Promise<void> {
  await db.transaction().execute(async (tx) => {
    for (let i = 0; i < rows.length; i += BATCH) await tx.insertInto('projects').values(rows.slice(i, i + BATCH)).execute();
  });
}

/** The id at a 1-based position in id order (a deep keyset cursor for the benchmark). */
export async function projectIdAtPosition(db: Kysely<DB>, position: number): Promise<number | undefined> {
  const r = await db.selectFrom('projects').select('id').orderBy('id').limit(1).offset(position - 1).executeTakeFirst();
  return r?.id;
}
