// Counts behind the per-user project limit.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

/** Projects in one namespace (a user's personal projects when it is their namespace). */
export async function countProjectsInNamespace(db: Kysely<DB>, namespaceId: number): Promise<number> {
  const r = await db.selectFrom('projects').select((eb) => eb.fn.countAll<number>().as('n')).where('namespace_id', '=', namespaceId).executeTakeFirstOrThrow();
  return Number(r.n);
}
