// Memberships of users in groups ('Namespace') and, later, projects ('Project').
// A membership whose expires_at is today or earlier is expired and counts as absent.
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { ilike, likeEscape } from '../dialect.js';
import { compiledOnce } from '../compiled.js';
import { runPage } from '../paginate.js';
import type { DB, MembersTable } from '../schema.js';

export type MemberRow = Selectable<MembersTable>;
export type SourceType = 'Namespace' | 'Project';

export interface SourceRef {
  type: SourceType;
  id: number;
}

const notExpired = (today: string) => (eb: any) => eb.or([eb('members.expires_at', 'is', null), eb('members.expires_at', '>', today)]);

export const findMember = (db: Kysely<DB>, s: SourceRef, userId: number, today: string) =>
  db
    .selectFrom('members')
    .selectAll()
    .where('source_type', '=', s.type)
    .where('source_id', '=', s.id)
    .where('user_id', '=', userId)
    .where(notExpired(today))
    .executeTakeFirst();

/** Any row, expired or not (a unique key holds one per user and source). */
export const findMemberRow = (db: Kysely<DB>, s: SourceRef, userId: number) =>
  db.selectFrom('members').selectAll().where('source_type', '=', s.type).where('source_id', '=', s.id).where('user_id', '=', userId).executeTakeFirst();

export const insertMember = (db: Kysely<DB>, row: Insertable<MembersTable>) =>
  db.insertInto('members').values(row).returningAll().executeTakeFirstOrThrow();

export const updateMember = (db: Kysely<DB>, id: number, patch: Updateable<MembersTable>) =>
  db.updateTable('members').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export const deleteMember = (db: Kysely<DB>, id: number) => db.deleteFrom('members').where('id', '=', id).execute();

/** The user's live memberships among the given sources of one type. */
/** The user's live memberships in the groups with these full paths (lowercase), with each group's path. */
export const groupMembershipsByPaths = (db: Kysely<DB>, userId: number, pathsLower: string[], today: string) =>
  pathsLower.length === 0
    ? Promise.resolve([] as { full_path_lower: string; access_level: number }[])
    : db
        .selectFrom('members')
        .innerJoin('namespaces', 'namespaces.id', 'members.source_id')
        .select(['namespaces.full_path_lower', 'members.access_level'])
        .where('members.user_id', '=', userId)
        .where('members.source_type', '=', 'Namespace')
        .where('namespaces.full_path_lower', 'in', pathsLower)
        .where(notExpired(today))
        .execute();

export const membershipsIn = (db: Kysely<DB>, userId: number, type: SourceType, sourceIds: number[], today: string) =>
  sourceIds.length === 0
    ? Promise.resolve([] as MemberRow[])
    : db
        .selectFrom('members')
        .selectAll()
        .where('user_id', '=', userId)
        .where('source_type', '=', type)
        .where('source_id', 'in', sourceIds)
        .where(notExpired(today))
        .execute();

/** The user's live group memberships with each group's full path. */
export const groupMembershipsOf = (db: Kysely<DB>, userId: number, today: string) =>
  db
    .selectFrom('members')
    .innerJoin('namespaces', 'namespaces.id', 'members.source_id')
    .select(['namespaces.id as group_id', 'namespaces.full_path_lower', 'members.access_level'])
    .where('members.user_id', '=', userId)
    .where('members.source_type', '=', 'Namespace')
    .where(notExpired(today))
    .execute();

/**
 * The ids of the groups in which the user has a live membership of at least `minLevel`, and of
 * every group below those (a group's full path starts with its ancestors' full paths plus '/'),
 * as a subquery: the project lists put it in their own statement (projects.ts authorizedCondition).
 */
export const groupIdsAtOrBelowMembershipsSql = (userId: unknown, minLevel: unknown, today: unknown) => sql<{ id: number }>`SELECT g.id FROM namespaces g
  WHERE g.kind = 'group' AND EXISTS (SELECT 1 FROM members m INNER JOIN namespaces mg ON mg.id = m.source_id
    WHERE m.user_id = ${userId} AND m.source_type = 'Namespace' AND m.access_level >= ${minLevel}
      AND (m.expires_at IS NULL OR m.expires_at > ${today})
      AND (mg.id = g.id OR substr(g.full_path_lower, 1, length(mg.full_path_lower) + 1) = mg.full_path_lower || '/'))`;

// The same ids read on their own (group lists): compiled once (compiled.ts).
const groupsAtOrBelowMemberships = compiledOnce((db, v: { userId: number; minLevel: number; today: string }) =>
  db.selectFrom(sql<{ id: number }>`(${groupIdsAtOrBelowMembershipsSql(v.userId, v.minLevel, v.today)})`.as('ids')).select('ids.id'),
);

/** The groups of groupIdsAtOrBelowMembershipsSql, read. */
export async function groupIdsAtOrBelowMemberships(db: Kysely<DB>, userId: number, minLevel: number, today: string): Promise<number[]> {
  return (await groupsAtOrBelowMemberships(db, { userId, minLevel, today })).map((r) => r.id);
}

/** Distinct owners across these sources of one type, not counting project bots. */
export async function countOwners(db: Kysely<DB>, type: SourceType, sourceIds: number[], today: string): Promise<number> {
  const r = await db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select((eb) => eb.fn.count<number>('members.user_id').distinct().as('n'))
    .where('members.source_type', '=', type)
    .where('members.source_id', 'in', sourceIds)
    .where('members.access_level', '>=', 50)
    .where((eb) => eb.or([eb('users.bot_kind', 'is', null), eb('users.bot_kind', '!=', 'project_bot')]))
    .where(notExpired(today))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function countDistinctUsers(db: Kysely<DB>, type: SourceType, sourceIds: number[], today: string): Promise<number> {
  if (sourceIds.length === 0) return 0;
  const r = await db
    .selectFrom('members')
    .select((eb) => eb.fn.count<number>('members.user_id').distinct().as('n'))
    .where('source_type', '=', type)
    .where('source_id', 'in', sourceIds)
    .where(notExpired(today))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export interface MemberListFilter {
  type: SourceType;
  /** One id: direct members. Several (the source and the groups above it): everyone, highest level wins. */
  sourceIds: number[];
  /** Group memberships that count too, for a project's /members/all (its groups, groups it is shared with). */
  namespaceIds?: number[];
  today: string;
  query?: string;
  userIds?: number[];
  skipUsers?: number[];
  /** Only this user (GET …/members/all/:user_id). */
  userId?: number;
  /** Members that are bot users of this kind only (group access tokens). */
  botKind?: string;
}

/**
 * Members of the given sources, one row per user: where a user is a member of several sources
 * the row with the highest access level wins (ties: the newest membership, normally the
 * nearest). Ordered by membership id.
 */
export function pageMembers(db: Kysely<DB>, f: MemberListFilter, page: PageRequest): Promise<PageResult<MemberRow>> {
  const groups = f.namespaceIds ?? [];
  const inSources = (t: 'members' | 'better') => (eb: any) => {
    const own = eb.and([eb(`${t}.source_type`, '=', f.type), eb(`${t}.source_id`, 'in', f.sourceIds)]);
    return groups.length ? eb.or([own, eb.and([eb(`${t}.source_type`, '=', 'Namespace'), eb(`${t}.source_id`, 'in', groups)])]) : own;
  };
  let q = db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .selectAll('members')
    .where(inSources('members'))
    .where(notExpired(f.today));
  if (f.sourceIds.length + groups.length > 1) {
    q = q.where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('members as better')
            .select('better.id')
            .whereRef('better.user_id', '=', 'members.user_id')
            .where(inSources('better'))
            .where((eb) => eb.or([eb('better.expires_at', 'is', null), eb('better.expires_at', '>', f.today)]))
            .where((eb) =>
              eb.or([
                eb('better.access_level', '>', eb.ref('members.access_level')),
                eb.and([eb('better.access_level', '=', eb.ref('members.access_level')), eb('better.id', '>', eb.ref('members.id'))]),
              ]),
            ),
        ),
      ),
    );
  }
  if (f.query) {
    const pattern = `%${likeEscape(f.query)}%`;
    q = q.where((eb) => eb.or([ilike(db, 'users.name', pattern), ilike(db, 'users.username', pattern), ilike(db, 'users.email', pattern)]));
  }
  if (f.userIds?.length) q = q.where('members.user_id', 'in', f.userIds);
  if (f.skipUsers?.length) q = q.where('members.user_id', 'not in', f.skipUsers);
  if (f.userId !== undefined) q = q.where('members.user_id', '=', f.userId);
  if (f.botKind !== undefined) q = q.where('users.bot_kind', '=', f.botKind);
  return runPage(db, q.orderBy('members.id', page.kind === 'keyset' ? page.sort : 'asc'), page, { idColumn: 'members.id' });
}
