import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB, NamespacesTable, UsersTable } from '../schema.js';
import { insertNamespace } from './namespaces.js';

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;

export const findUserById = (db: Kysely<DB>, id: number) =>
  db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

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
  return db.transaction().execute(async (tx) => {
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
