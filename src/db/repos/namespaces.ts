import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { DB, NamespacesTable } from '../schema.js';

export type NamespaceRow = Selectable<NamespacesTable>;

export const findNamespaceById = (db: Kysely<DB>, id: number) =>
  db.selectFrom('namespaces').selectAll().where('id', '=', id).executeTakeFirst();

export const findNamespaceByFullPath = (db: Kysely<DB>, fullPath: string) =>
  db.selectFrom('namespaces').selectAll().where('full_path_lower', '=', fullPath.toLowerCase()).executeTakeFirst();

export const insertNamespace = (db: Kysely<DB> | Transaction<DB>, row: Insertable<NamespacesTable>) =>
  db.insertInto('namespaces').values(row).returningAll().executeTakeFirstOrThrow();
