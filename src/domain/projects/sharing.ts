// Sharing a project with a group (POST/DELETE /projects/:id/share). What a link grants is
// computed in shared_access.ts; here are the rules for making and removing one.
import type { Container } from '../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { findNamespaceById, findNamespacesByFullPaths, selfAndAncestorPaths } from '../../db/repos/namespaces.js';
import { deleteGroupLink, findGroupLink, insertGroupLink, type ProjectGroupLinkRow } from '../../db/repos/project_group_links.js';
import type { Actor } from '../auth/actor.js';
import { apiError, conflict, exactError, forbidden, invalidParams, notFound } from '../errors.js';
import { groupAccess } from '../members/policy.js';
import { isDate, nowIso } from '../../shared/time.js';
import { canAdminProject } from './policy.js';
import { findProject } from './find.js';

export interface ShareInput {
  group_id: number;
  group_access: number;
  expires_at?: string;
}

const alreadyShared = () => conflict('Group already shared with this group');

/** Maintainers share the project with a group they can see, unless its namespace locks sharing. */
export async function shareProject(c: Container, actor: Actor, idOrPath: number | string, input: ShareInput): Promise<ProjectGroupLinkRow> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canAdminProject(access)) throw forbidden();
  if (input.expires_at !== undefined && !isDate(input.expires_at.slice(0, 10))) throw invalidParams('expires_at is invalid');
  const ns = (await findNamespaceById(c.db, row.namespace_id))!;
  if (ns.share_with_group_lock === 1) throw apiError('The project sharing with group is disabled');

  const group = await findNamespaceById(c.db, input.group_id);
  // Unknown and unseen groups alike, so the answer does not tell whether a private group exists.
  if (!group || group.kind !== 'group' || !(await groupAccess(c, actor, group)).canRead) throw notFound('Group');
  // The project's own group and the groups above it already reach it through membership.
  if (ns.kind === 'group' && (await findNamespacesByFullPaths(c.db, selfAndAncestorPaths(ns.full_path_lower))).some((g) => g.id === group.id)) {
    throw conflict('Project cannot be shared with the group it is in or one of its ancestors.');
  }
  if (await findGroupLink(c.db, row.id, group.id)) throw alreadyShared();
  const now = nowIso();
  try {
    return await insertGroupLink(c.db, {
      project_id: row.id,
      group_id: group.id,
      group_access: input.group_access,
      expires_at: input.expires_at?.slice(0, 10) ?? null,
      created_at: now,
      updated_at: now,
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw alreadyShared();
    throw err;
  }
}

export async function unshareProject(c: Container, actor: Actor, idOrPath: number | string, groupId: number): Promise<void> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canAdminProject(access)) throw forbidden();
  const link = await findGroupLink(c.db, row.id, groupId);
  if (!link) throw notFound('Group Link');
  await deleteGroupLink(c.db, link.id);
}
