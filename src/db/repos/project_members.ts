// Project membership queries the members repo does not have: whole member lists for copying.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

/** Live direct members of a project that are people (bot users stay with their own project). */
export const liveHumanMembersOf = (db: Kysely<DB>, projectId: number, today: string) =>
  db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .selectAll('members')
    .where('members.source_type', '=', 'Project')
    .where('members.source_id', '=', projectId)
    .where('users.bot', '=', 0)
    .where((eb) => eb.or([eb('members.expires_at', 'is', null), eb('members.expires_at', '>', today)]))
    .orderBy('members.id')
    .execute();
