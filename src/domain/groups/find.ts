// Finding a group the actor may see, and the full names groups are shown with. Small on purpose:
// every area that names a group imports this, not the groups service.
import type { Container } from '../context.js';
import { findNamespaceByFullPath, findNamespaceById, findNamespacesByFullPaths, selfAndAncestorPaths, type NamespaceRow } from '../../db/repos/namespaces.js';
import type { Actor } from '../auth/actor.js';
import type { CustomAttributeView } from '../custom_attributes/lists.js';
import { notFound } from '../errors.js';
import { groupAccess, type GroupAccess } from '../members/policy.js';

export interface GroupView {
  row: NamespaceRow;
  /** Names from the top-level group down, joined by " / ". */
  fullName: string;
  /** Present when an admin asked `with_custom_attributes`. */
  customAttributes?: CustomAttributeView[];
}

export interface FoundGroup {
  row: NamespaceRow;
  access: GroupAccess;
}

const GROUP_NOT_FOUND = () => notFound('Group');

/** A group by id or (URL-decoded) full path that the actor may see; else 404 Group Not Found. */
export async function findGroup(c: Container, actor: Actor | null, idOrPath: number | string): Promise<FoundGroup> {
  const s = String(idOrPath);
  const row = /^\d+$/.test(s) ? await findNamespaceById(c.db, Number(s)) : await findNamespaceByFullPath(c.db, s);
  if (!row || row.kind !== 'group') throw GROUP_NOT_FOUND();
  const access = await groupAccess(c, actor, row);
  if (!access.canRead) throw GROUP_NOT_FOUND();
  return { row, access };
}

/** Adds full names (ancestor names joined by " / ") to group rows, in one query. */
export async function withFullNames(c: Container, rows: NamespaceRow[]): Promise<GroupView[]> {
  const names = await fullNamesOf(c, rows);
  return rows.map((row) => ({ row, fullName: names.get(row.full_path_lower)! }));
}

/** The full name of each of these namespaces by its lowercased full path, in one query (none when all are top-level). */
export async function fullNamesOf(c: Container, rows: Pick<NamespaceRow, 'full_path_lower' | 'name'>[]): Promise<Map<string, string>> {
  // Only the groups above these rows need reading.
  const names = new Map(rows.map((r) => [r.full_path_lower, r.name]));
  const missing = [...new Set(rows.flatMap((r) => selfAndAncestorPaths(r.full_path_lower)))].filter((p) => !names.has(p));
  for (const r of await findNamespacesByFullPaths(c.db, missing)) names.set(r.full_path_lower, r.name);
  const full = (pathLower: string) =>
    selfAndAncestorPaths(pathLower)
      .map((p) => names.get(p) ?? p)
      .join(' / ');
  return new Map(rows.map((r) => [r.full_path_lower, full(r.full_path_lower)]));
}
