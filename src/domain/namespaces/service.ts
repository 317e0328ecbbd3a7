// Namespaces: the user's own namespace and groups, read-only here (groups change through /groups).
import type { Container } from '../context.js';
import { countDistinctUsers, groupMembershipsOf } from '../../db/repos/members.js';
import { findNamespaceByFullPath, findNamespaceById, findSelfAndDescendants, pageNamespaces, type NamespaceRow } from '../../db/repos/namespaces.js';
import { findUserById, type UserRow } from '../../db/repos/users.js';
import { isAdmin, type Actor } from '../auth/actor.js';
import { ACCESS, groupAccess } from '../members/policy.js';
import { findNamespace } from './find.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { today } from '../../shared/time.js';

export interface NamespaceView {
  row: NamespaceRow;
  /** The owner of a user namespace (its avatar and web page are the user's). */
  owner: UserRow | null;
  /** Distinct members of a group and the groups below it; only for those who administer it. */
  membersCountWithDescendants: number | null;
}

async function view(c: Container, actor: Actor, row: NamespaceRow, canAdmin: boolean | null = null): Promise<NamespaceView> {
  if (row.kind !== 'group') {
    return { row, owner: row.owner_id !== null ? ((await findUserById(c.db, row.owner_id)) ?? null) : null, membersCountWithDescendants: null };
  }
  const admin = canAdmin ?? (await groupAccess(c, actor, row)).canAdmin;
  const count = admin ? await countDistinctUsers(c.db, 'Namespace', (await findSelfAndDescendants(c.db, row)).map((r) => r.id), today()) : null;
  return { row, owner: null, membersCountWithDescendants: count };
}

export interface ListNamespacesInput {
  search?: string;
  owned_only?: boolean;
}

/** GET /namespaces: admins see all; others their own namespace and the groups they are (directly) members of. */
export async function listNamespaces(c: Container, actor: Actor, input: ListNamespacesInput, page: PageRequest): Promise<PageResult<NamespaceView>> {
  let ids: number[] | null = null;
  if (!isAdmin(actor)) {
    const memberships = await groupMembershipsOf(c.db, actor.user.id, today());
    ids = memberships.filter((m) => !input.owned_only || m.access_level >= ACCESS.OWNER).map((m) => m.group_id);
    if (actor.user.namespace_id !== null) ids.push(actor.user.namespace_id);
  }
  const result = await pageNamespaces(c.db, { ids, search: input.search || undefined }, page);
  const items: NamespaceView[] = [];
  for (const row of result.items) items.push(await view(c, actor, row));
  return { ...result, items };
}

/** GET /namespaces/:id (id or full path): a group the caller may see, or the caller's own namespace. */
export async function getNamespace(c: Container, actor: Actor, idOrPath: number | string): Promise<NamespaceView> {
  const { row, group } = await findNamespace(c, actor, idOrPath);
  return view(c, actor, row, group ? group.canAdmin : null);
}

/** GET /namespaces/:namespace/exists: whether a path is taken (at top level or below parent_id), with free alternatives. */
export async function namespaceExists(c: Container, path: string, parentId: number | null): Promise<{ exists: boolean; suggests: string[] }> {
  const prefix = parentId !== null ? (await findNamespaceById(c.db, parentId))?.full_path : undefined;
  const full = (p: string) => (prefix ? `${prefix}/${p}` : p);
  if (!(await findNamespaceByFullPath(c.db, full(path)))) return { exists: false, suggests: [] };
  for (let i = 1; ; i++) {
    const candidate = `${path}${i}`;
    if (!(await findNamespaceByFullPath(c.db, full(candidate)))) return { exists: true, suggests: [candidate] };
  }
}
