import type { Insertable, Kysely, Selectable } from 'kysely';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { ilike, likeEscape } from '../dialect.js';
import { runPage } from '../paginate.js';
import type { DB, OauthAccessTokensTable, PersonalAccessTokensTable, SessionsTable } from '../schema.js';
import type { UserRow } from './users.js';

export type PersonalAccessTokenRow = Selectable<PersonalAccessTokensTable>;
export type OauthTokenRow = Selectable<OauthAccessTokensTable>;
export type SessionRow = Selectable<SessionsTable>;

export interface PatWithUser {
  pat: Pick<PersonalAccessTokenRow, 'id' | 'scopes' | 'impersonation' | 'revoked' | 'expires_at' | 'last_used_at'>;
  user: UserRow;
}

/** The token's fields that authentication reads, and its user, in one read. */
export async function findPatWithUserByDigest(db: Kysely<DB>, tokenDigest: string): Promise<PatWithUser | undefined> {
  const row = await db
    .selectFrom('personal_access_tokens as t')
    .innerJoin('users', 'users.id', 't.user_id')
    .selectAll('users')
    .select(['t.id as t_id', 't.scopes as t_scopes', 't.impersonation as t_impersonation', 't.revoked as t_revoked', 't.expires_at as t_expires_at', 't.last_used_at as t_last_used_at'])
    .where('t.token_digest', '=', tokenDigest)
    .executeTakeFirst();
  if (!row) return undefined;
  const { t_id, t_scopes, t_impersonation, t_revoked, t_expires_at, t_last_used_at, ...user } = row;
  const pat = { id: t_id, scopes: t_scopes, impersonation: t_impersonation, revoked: t_revoked, expires_at: t_expires_at, last_used_at: t_last_used_at };
  return { pat, user: user as UserRow };
}

export const findPatById = (db: Kysely<DB>, id: number) =>
  db.selectFrom('personal_access_tokens').selectAll().where('id', '=', id).executeTakeFirst();

export const insertPat = (db: Kysely<DB>, row: Insertable<PersonalAccessTokensTable>) =>
  db.insertInto('personal_access_tokens').values(row).returningAll().executeTakeFirstOrThrow();

export const touchPat = (db: Kysely<DB>, id: number, at: string) =>
  db.updateTable('personal_access_tokens').set({ last_used_at: at }).where('id', '=', id).execute();

export const revokePat = (db: Kysely<DB>, id: number) =>
  db.updateTable('personal_access_tokens').set({ revoked: 1 }).where('id', '=', id).execute();

export interface PatFilters {
  userId?: number;
  impersonation?: boolean;
  /** active: not revoked and not expired on `today`; inactive: the rest. */
  state?: 'active' | 'inactive';
  today: string; // YYYY-MM-DD
  revoked?: boolean;
  createdBefore?: string;
  createdAfter?: string;
  lastUsedBefore?: string;
  lastUsedAfter?: string;
  search?: string;
}

/** One page of tokens matching `f`, oldest first. */
export function pagePats(db: Kysely<DB>, f: PatFilters, page: PageRequest): Promise<PageResult<PersonalAccessTokenRow>> {
  let q = db.selectFrom('personal_access_tokens').selectAll();
  if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
  if (f.impersonation !== undefined) q = q.where('impersonation', '=', f.impersonation ? 1 : 0);
  if (f.state === 'active') {
    q = q.where('revoked', '=', 0).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', f.today)]));
  } else if (f.state === 'inactive') {
    q = q.where((eb) => eb.or([eb('revoked', '=', 1), eb('expires_at', '<=', f.today)]));
  }
  if (f.revoked !== undefined) q = q.where('revoked', '=', f.revoked ? 1 : 0);
  if (f.createdBefore !== undefined) q = q.where('created_at', '<=', f.createdBefore);
  if (f.createdAfter !== undefined) q = q.where('created_at', '>=', f.createdAfter);
  if (f.lastUsedBefore !== undefined) q = q.where('last_used_at', '<=', f.lastUsedBefore);
  if (f.lastUsedAfter !== undefined) q = q.where('last_used_at', '>=', f.lastUsedAfter);
  if (f.search) q = q.where(ilike(db, 'name', `%${likeEscape(f.search)}%`));
  const sort = page.kind === 'keyset' ? page.sort : 'asc';
  return runPage(db, q.orderBy('id', sort), page);
}

export const findOauthByDigest = (db: Kysely<DB>, tokenDigest: string) =>
  db.selectFrom('oauth_access_tokens').selectAll().where('token_digest', '=', tokenDigest).executeTakeFirst();

export const findOauthByRefreshDigest = (db: Kysely<DB>, refreshDigest: string) =>
  db.selectFrom('oauth_access_tokens').selectAll().where('refresh_digest', '=', refreshDigest).executeTakeFirst();

export const insertOauthToken = (db: Kysely<DB>, row: Insertable<OauthAccessTokensTable>) =>
  db.insertInto('oauth_access_tokens').values(row).returningAll().executeTakeFirstOrThrow();

/** Revokes an OAuth token unless already revoked; true when this call revoked it (a refresh is single-use). */
export async function revokeOauthToken(db: Kysely<DB>, id: number, at: string): Promise<boolean> {
  const r = await db.updateTable('oauth_access_tokens').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export const findSessionByDigest = (db: Kysely<DB>, sessionDigest: string) =>
  db.selectFrom('sessions').selectAll().where('session_digest', '=', sessionDigest).executeTakeFirst();

export const insertSession = (db: Kysely<DB>, row: Insertable<SessionsTable>) =>
  db.insertInto('sessions').values(row).returningAll().executeTakeFirstOrThrow();

export const setSessionAdminMode = (db: Kysely<DB>, sessionDigest: string, until: string | null) =>
  db.updateTable('sessions').set({ admin_mode_until: until }).where('session_digest', '=', sessionDigest).execute();

export const deleteSessionByDigest = (db: Kysely<DB>, sessionDigest: string) =>
  db.deleteFrom('sessions').where('session_digest', '=', sessionDigest).execute();

/**
 * Revokes token `oldId` and inserts its successor in one transaction; undefined when the old
 * token was already revoked (a concurrent rotation got there first).
 */
export async function replacePat(
  db: Kysely<DB>,
  oldId: number,
  row: Insertable<PersonalAccessTokensTable>,
): Promise<PersonalAccessTokenRow | undefined> {
  return db.transaction().execute(async (tx) => {
    const r = await tx.updateTable('personal_access_tokens').set({ revoked: 1 }).where('id', '=', oldId).where('revoked', '=', 0).executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return undefined;
    return tx.insertInto('personal_access_tokens').values(row).returningAll().executeTakeFirstOrThrow();
  });
}
