// Group lists. A group is a row of `namespaces` with kind 'group'; single-row reads and writes
// live in repos/namespaces.ts.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { ilike, likeEscape } from '../dialect.js';
import { runCursorPage, runPage } from '../paginate.js';
import type { DB } from '../schema.js';
import { whereCustomAttributes, type CustomAttributeFilter } from './custom_attributes.js';
import { underPath, type NamespaceRow } from './namespaces.js';

export interface GroupListFilter {
  /** Which groups the caller may list: all, or those at least this visible plus these ids. */
  visible: { all: true } | { all: false; minVisibility: number | null; ids: number[] };
  /** Only these ids (owned, min_access_level); null for no such restriction. */
  onlyIds: number[] | null;
  /** undefined: anywhere; null: top level only; a number: children of that group. */
  parentId?: number | null;
  /** Only groups below this full path (descendant_groups). */
  below?: string;
  search?: string;
  skipIds?: number[];
  visibility?: number;
  /** `custom_attributes[key]=value` (admins). */
  customAttributes?: CustomAttributeFilter;
  orderBy: 'name' | 'path' | 'id';
  sort: 'asc' | 'desc';
}

export function pageGroups(db: Kysely<DB>, f: GroupListFilter, page: PageRequest): Promise<PageResult<NamespaceRow>> {
  let q = db.selectFrom('namespaces').selectAll().where('kind', '=', 'group');
  const v = f.visible;
  if (!v.all) {
    const { minVisibility, ids } = v;
    q = q.where((eb) => {
      const ors = [];
      if (minVisibility !== null) ors.push(eb('visibility_level', '>=', minVisibility));
      if (ids.length) ors.push(eb('id', 'in', ids));
      return ors.length ? eb.or(ors) : sql<boolean>`1 = 0`;
    });
  }
  if (f.onlyIds !== null) q = f.onlyIds.length ? q.where('id', 'in', f.onlyIds) : q.where(sql<boolean>`1 = 0`);
  if (f.parentId === null) q = q.where('parent_id', 'is', null);
  else if (f.parentId !== undefined) q = q.where('parent_id', '=', f.parentId);
  if (f.below !== undefined) q = q.where(underPath(f.below));
  if (f.search) {
    const pattern = `%${likeEscape(f.search)}%`;
    q = q.where((eb) => eb.or([ilike(db, 'name', pattern), ilike(db, 'path', pattern)]));
  }
  if (f.skipIds?.length) q = q.where('id', 'not in', f.skipIds);
  if (f.visibility !== undefined) q = q.where('visibility_level', '=', f.visibility);
  q = whereCustomAttributes(q, 'group', 'namespaces.id', f.customAttributes);

  if (page.kind === 'keyset') {
    // Routes allow keyset only for order_by=name&sort=asc.
    return runCursorPage(q.orderBy('name', 'asc').orderBy('id', 'asc'), page, 'name', (r) => r.name);
  }
  // The reference adds `id asc` after the chosen order (id desc when ordering by id desc).
  const ordered = f.orderBy === 'id' ? q.orderBy('id', f.sort) : q.orderBy(f.orderBy, f.sort).orderBy('id', 'asc');
  return runPage(db, ordered, page);
}

/** Bot users that are members of these groups (they go with the group). */
export const groupBotUserIds = (db: Kysely<DB>, groupIds: number[]) =>
  groupIds.length === 0
    ? Promise.resolve([] as number[])
    : db
        .selectFrom('members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select('u.id')
        .where('m.source_type', '=', 'Namespace')
        .where('m.source_id', 'in', groupIds)
        .where('u.bot_kind', '=', 'group_bot')
        .execute()
        .then((rows) => rows.map((r) => r.id));

/**
 * Removes bot users outright (their tokens, memberships and personal namespace go with them
 * through foreign keys), as revoking a group access token does in the reference.
 */
export async function deleteBotUsers(db: Kysely<DB>, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.transaction().execute((tx) => deleteBotRows(tx, userIds));
}

/** The rows of bot users (memberships, tokens, personal namespaces), inside the caller's transaction. */
export async function deleteBotRows(tx: Transaction<DB>, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  await tx.deleteFrom('members').where('user_id', 'in', userIds).execute();
  await tx.deleteFrom('personal_access_tokens').where('user_id', 'in', userIds).execute();
  await tx.deleteFrom('namespaces').where('kind', '=', 'user').where('owner_id', 'in', userIds).execute();
  await tx.deleteFrom('users').where('id', 'in', userIds).where('bot', '=', 1).execute();
}
