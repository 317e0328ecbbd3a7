// Finding a namespace the actor may see: a group they can read, or their own personal namespace
// (admins: any). Anything else is 404 Namespace Not Found, as the reference's find_namespace! has it.
import type { Container } from '../context.js';
import { findNamespaceByFullPath, findNamespaceById, type NamespaceRow } from '../../db/repos/namespaces.js';
import { isAdmin, type Actor } from '../auth/actor.js';
import { notFound } from '../errors.js';
import { groupAccess, type GroupAccess } from '../members/policy.js';

export interface FoundNamespace {
  row: NamespaceRow;
  /** The actor's access to a group namespace; null for a personal one. */
  group: GroupAccess | null;
}

export async function findNamespace(c: Container, actor: Actor, idOrPath: number | string): Promise<FoundNamespace> {
  const s = String(idOrPath);
  const row = /^\d+$/.test(s) ? await findNamespaceById(c.db, Number(s)) : await findNamespaceByFullPath(c.db, s);
  if (!row) throw notFound('Namespace');
  if (row.kind === 'group') {
    const group = await groupAccess(c, actor, row);
    if (!group.canRead) throw notFound('Namespace');
    return { row, group };
  }
  if (row.owner_id !== actor.user.id && !isAdmin(actor)) throw notFound('Namespace');
  return { row, group: null };
}
