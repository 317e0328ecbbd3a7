import { sql, type Insertable, type Kysely, type Selectable, type Transaction, type Updateable } from 'kysely';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { ilike, likeEscape } from '../dialect.js';
import { runPage } from '../paginate.js';
import type { DB, NamespacesTable } from '../schema.js';
import { inTransaction } from '../transaction.js';
import { refreshProjectPaths } from './projects.js';

export type NamespaceRow = Selectable<NamespacesTable>;

export const findNamespaceById = (db: Kysely<DB>, id: number) =>
  db.selectFrom('namespaces').selectAll().where('id', '=', id).executeTakeFirst();

export const findNamespaceByFullPath = (db: Kysely<DB>, fullPath: string) =>
  db.selectFrom('namespaces').selectAll().where('full_path_lower', '=', fullPath.toLowerCase()).executeTakeFirst();

export const insertNamespace = (db: Kysely<DB> | Transaction<DB>, row: Insertable<NamespacesTable>) =>
  db.insertInto('namespaces').values(row).returningAll().executeTakeFirstOrThrow();

// ---- groups and namespace hierarchy (groups are namespaces with kind 'group') ----
// A namespace's ancestors are the namespaces whose full path is a prefix of its own, and its
// descendants those whose full path starts with its own plus '/': full_path_lower is kept exact
// on every rename or move (see renameNamespaceTree), so no recursive query is needed.

/** `a/b/c` → [`a`, `a/b`, `a/b/c`]. */
export const selfAndAncestorPaths = (fullPathLower: string): string[] =>
  fullPathLower.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));

/** `full_path_lower` starts with `prefix/` (both dialects: substr and || exist on each). */
export const underPath = (prefixLower: string, column = 'full_path_lower') =>
  sql<boolean>`substr(${sql.ref(column)}, 1, ${prefixLower.length + 1}) = ${`${prefixLower}/`}`;

export const findNamespacesByFullPaths = (db: Kysely<DB>, pathsLower: string[]) =>
  pathsLower.length === 0
    ? Promise.resolve([] as NamespaceRow[])
    : db.selectFrom('namespaces').selectAll().where('full_path_lower', 'in', pathsLower).execute();

export const findNamespacesByIds = (db: Kysely<DB>, ids: number[]) =>
  ids.length === 0 ? Promise.resolve([] as NamespaceRow[]) : db.selectFrom('namespaces').selectAll().where('id', 'in', ids).execute();

/** The group and every group below it, shallowest first. */
export const findSelfAndDescendants = (db: Kysely<DB>, group: NamespaceRow) =>
  db
    .selectFrom('namespaces')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', group.id), underPath(group.full_path_lower)]))
    .orderBy('full_path_lower')
    .execute();

export const hasSibling = (db: Kysely<DB>, parentId: number | null, column: 'path' | 'name', value: string, exceptId: number | null) => {
  let q = db.selectFrom('namespaces').select('id').where('kind', '=', 'group');
  q = parentId === null ? q.where('parent_id', 'is', null) : q.where('parent_id', '=', parentId);
  q = column === 'path' ? q.where(sql`lower(path)`, '=', value.toLowerCase()) : q.where('name', '=', value);
  if (exceptId !== null) q = q.where('id', '!=', exceptId);
  return q.executeTakeFirst().then((r) => r !== undefined);
};

export const updateNamespace = (db: Kysely<DB> | Transaction<DB>, id: number, patch: Updateable<NamespacesTable>) =>
  db.updateTable('namespaces').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

/**
 * Applies `patch` to a group and, when its full path changes, rewrites the full paths of every
 * group below it, in one transaction.
 */
export async function updateNamespaceTree(db: Kysely<DB>, group: NamespaceRow, patch: Updateable<NamespacesTable>): Promise<NamespaceRow> {
  return inTransaction(db, async (tx) => {
    const updated = await updateNamespace(tx, group.id, patch);
    if (updated.full_path !== group.full_path) {
      await refreshProjectPaths(tx, group.full_path, updated.full_path);
      const below = await tx.selectFrom('namespaces').select(['id', 'full_path']).where(underPath(group.full_path_lower)).execute();
      for (const d of below) {
        const full = updated.full_path + d.full_path.slice(group.full_path.length);
        await tx.updateTable('namespaces').set({ full_path: full, full_path_lower: full.toLowerCase() }).where('id', '=', d.id).execute();
      }
    }
    return updated;
  });
}

/** Deletes the namespaces (descendants go with their parent through the foreign key) and their memberships. */
export async function deleteNamespaces(db: Kysely<DB>, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await inTransaction(db, async (tx) => {
    await tx.deleteFrom('members').where('source_type', '=', 'Namespace').where('source_id', 'in', ids).execute();
    await tx.deleteFrom('namespaces').where('id', 'in', ids).execute();
  });
}

export interface NamespaceListFilter {
  /** null: every namespace (admin); else the user's own namespace plus these group ids. */
  ids: number[] | null;
  search?: string;
}

export function pageNamespaces(db: Kysely<DB>, f: NamespaceListFilter, page: PageRequest): Promise<PageResult<NamespaceRow>> {
  let q = db.selectFrom('namespaces').selectAll();
  if (f.ids !== null) q = f.ids.length ? q.where('id', 'in', f.ids) : q.where(sql<boolean>`1 = 0`);
  if (f.search) {
    const pattern = `%${likeEscape(f.search)}%`;
    q = q.where((eb) => eb.or([ilike(db, 'name', pattern), ilike(db, 'path', pattern)]));
  }
  return runPage(db, q.orderBy('id', page.kind === 'keyset' ? page.sort : 'asc'), page);
}
