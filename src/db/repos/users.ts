import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { ilike, likeEscape } from '../dialect.js';
import { runPage } from '../paginate.js';
import type { DB, NamespacesTable, UsersTable } from '../schema.js';
import { whereCustomAttributes, type CustomAttributeFilter } from './custom_attributes.js';
import { insertNamespace } from './namespaces.js';
import { refreshProjectPaths } from './projects.js';
import { inTransaction } from '../transaction.js';

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;

export const findUserById = (db: Kysely<DB>, id: number) =>
  db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

export const findUsersByIds = (db: Kysely<DB>, ids: number[]) =>
  ids.length === 0 ? Promise.resolve([] as UserRow[]) : db.selectFrom('users').selectAll().where('id', 'in', ids).execute();

export const findUserByUsername = (db: Kysely<DB>, username: string) =>
  db.selectFrom('users').selectAll().where('username_lower', '=', username.toLowerCase()).executeTakeFirst();

export const findUserByEmail = (db: Kysely<DB>, email: string) =>
  db.selectFrom('users').selectAll().where('email_lower', '=', email.toLowerCase()).executeTakeFirst();

/** An all-digits identifier is an id, anything else a username (case-insensitive). */
export async function findUserByIdOrUsername(db: Kysely<DB>, ident: string | number): Promise<UserRow | undefined> {
  const s = String(ident);
  return /^\d+$/.test(s) ? findUserById(db, Number(s)) : findUserByUsername(db, s);
}

export async function insertUser(db: Kysely<DB>, row: NewUser): Promise<UserRow> {
  return db.insertInto('users').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateUser(db: Kysely<DB>, id: number, patch: Updateable<UsersTable>): Promise<UserRow | undefined> {
  return db.updateTable('users').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function countUsers(db: Kysely<DB>): Promise<number> {
  const r = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** A user and its personal namespace (path = username), in one transaction. */
export async function insertUserWithNamespace(
  db: Kysely<DB>,
  row: NewUser,
  ns: Partial<Insertable<NamespacesTable>> = {},
): Promise<UserRow> {
  return inTransaction(db, async (tx) => {
    const user = await tx.insertInto('users').values(row).returningAll().executeTakeFirstOrThrow();
    const namespace = await insertNamespace(tx, {
      kind: 'user',
      name: user.name,
      path: user.username,
      full_path: user.username,
      full_path_lower: user.username_lower,
      owner_id: user.id,
      created_at: user.created_at,
      updated_at: user.created_at,
      ...ns,
    });
    return tx.updateTable('users').set({ namespace_id: namespace.id }).where('id', '=', user.id).returningAll().executeTakeFirstOrThrow();
  });
}

export type UserOrderBy = 'id' | 'name' | 'username' | 'created_at' | 'updated_at';

export interface UserFilters {
  /** Exact, case-insensitive. */
  username?: string;
  /** Words of 3+ characters must all occur in the name or in the username; shorter queries match them whole. */
  searchWords?: string[];
  /** The whole query, lowercased: matched against `emailColumn` exactly and ranked against name/username. */
  searchWhole?: string;
  /** Which email a search may match exactly: the primary one (admins) or the public one (everyone else). */
  searchEmail?: 'email' | 'public_email';
  active?: boolean;
  blocked?: boolean;
  external?: boolean;
  nonExternal?: boolean;
  admins?: boolean;
  withoutProjectBots?: boolean;
  createdAfter?: string;
  createdBefore?: string;
  /** Matches nothing (e.g. an identity lookup on an instance without identities). */
  none?: boolean;
  /** `custom_attributes[key]=value` (admins). */
  customAttributes?: CustomAttributeFilter;
  /** Explicit order; without it a search ranks exact matches first, anything else is newest first. */
  orderBy?: UserOrderBy;
  sort?: 'asc' | 'desc';
}

/** One page of users matching `f`. */
export function pageUsers(db: Kysely<DB>, f: UserFilters, page: PageRequest): Promise<PageResult<UserRow>> {
  let q = db.selectFrom('users').selectAll();
  if (f.none) q = q.where(sql<boolean>`1 = 0`);
  if (f.username !== undefined) q = q.where('username_lower', '=', f.username.toLowerCase());
  if (f.searchWhole !== undefined) {
    const whole = f.searchWhole;
    const words = f.searchWords ?? [];
    const emailColumn = f.searchEmail ?? 'public_email';
    q = q.where((eb) => {
      const inColumn = (col: 'name' | 'username') =>
        words.length > 0
          ? eb.and(words.map((w) => ilike(db, col, `%${likeEscape(w)}%`)))
          : ilike(db, col, likeEscape(whole));
      return eb.or([inColumn('name'), inColumn('username'), eb(eb.fn('lower', [emailColumn]), '=', whole)]);
    });
  }
  if (f.active) q = q.where('state', '=', 'active');
  if (f.blocked) q = q.where('state', 'in', ['blocked', 'ldap_blocked']);
  if (f.external) q = q.where('external', '=', 1);
  if (f.nonExternal) q = q.where('external', '=', 0);
  if (f.admins) q = q.where('admin', '=', 1);
  if (f.withoutProjectBots) q = q.where((eb) => eb.or([eb('bot_kind', 'is', null), eb('bot_kind', '!=', 'project_bot')]));
  if (f.createdAfter !== undefined) q = q.where('created_at', '>=', f.createdAfter);
  if (f.createdBefore !== undefined) q = q.where('created_at', '<=', f.createdBefore);
  q = whereCustomAttributes(q, 'user', 'users.id', f.customAttributes);

  if (f.orderBy) {
    const dir = f.sort ?? 'desc';
    q = q.orderBy(f.orderBy, dir);
    if (f.orderBy !== 'id') q = q.orderBy('id', dir);
  } else if (f.searchWhole !== undefined) {
    const w = f.searchWhole;
    q = q
      .orderBy(sql`CASE WHEN ${sql.ref('name')} = ${w} THEN 0 WHEN ${sql.ref('username')} = ${w} THEN 1 WHEN ${sql.ref('public_email')} = ${w} THEN 2 ELSE 3 END`)
      .orderBy('name', 'asc')
      .orderBy('id', 'asc');
  } else {
    q = q.orderBy('id', 'desc');
  }
  return runPage(db, q, page);
}

/** The user's highest access level over all memberships (0 without any). */
export async function highestAccessLevel(db: Kysely<DB>, userId: number): Promise<number> {
  const r = await db
    .selectFrom('members')
    .select((eb) => eb.fn.max('access_level').as('level'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(r?.level ?? 0);
}

/** Changes a user and keeps its personal namespace's path and name in step, in one transaction. */
export async function updateUserWithNamespace(db: Kysely<DB>, id: number, patch: Updateable<UsersTable>): Promise<UserRow | undefined> {
  return inTransaction(db, async (tx) => {
    const before = await tx.selectFrom('users').select('username').where('id', '=', id).executeTakeFirst();
    const user = await tx.updateTable('users').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
    if (!user || !before || (patch.username === undefined && patch.name === undefined)) return user;
    if (before.username !== user.username) await refreshProjectPaths(tx, before.username, user.username);
    await tx
      .updateTable('namespaces')
      .set({ name: user.name, path: user.username, full_path: user.username, full_path_lower: user.username_lower, updated_at: user.updated_at })
      .where('kind', '=', 'user')
      .where('owner_id', '=', id)
      .execute();
    return user;
  });
}

/** Deletes a user; its personal namespace, memberships and tokens go with it (foreign keys cascade). */
export async function deleteUser(db: Kysely<DB>, id: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    await tx.deleteFrom('namespaces').where('kind', '=', 'user').where('owner_id', '=', id).execute();
    await tx.deleteFrom('users').where('id', '=', id).execute();
  });
}

/**
 * Inserts `count` plain users named `<prefix><n>` in one statement (tests and benchmarks that
 * need many rows; these users get no personal namespace).
 */
export async function seedUsers(db: Kysely<DB>, count: number, prefix: string, at: string): Promise<void> {
  await sql`
    WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${count})
    INSERT INTO users (username, username_lower, name, email, email_lower, created_at, updated_at)
    SELECT p || CAST(n AS text), lower(p) || CAST(n AS text), p || CAST(n AS text),
           p || CAST(n AS text) || '@example.com', lower(p) || CAST(n AS text) || '@example.com', ${at}, ${at}
    FROM seq, (SELECT CAST(${prefix} AS text) AS p) AS given`.execute(db);
}
