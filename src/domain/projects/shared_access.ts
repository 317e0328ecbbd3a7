// What sharing a project with a group gives: the group's members (inherited membership
// included) reach the project at the lower of their level in the group and the link's
// group_access. Expired links count for nothing. Kept apart from sharing.ts (the share and
// unshare operations) so that the project policy can use it without an import cycle.
import type { Container } from '../context.js';
import { findNamespacesByFullPaths, findNamespacesByIds, selfAndAncestorPaths, type NamespaceRow } from '../../db/repos/namespaces.js';
import { liveLinksOf, type ProjectGroupLinkRow } from '../../db/repos/project_group_links.js';
import type { Actor } from '../auth/actor.js';
import { withFullNames } from '../groups/find.js';
import { accessLevelsInNamespaces, groupAccess } from '../members/policy.js';
import { today } from '../../shared/time.js';

/** The live links of these projects to groups (one read that both functions below take). */
export const liveLinksOfProjects = (c: Container, projectIds: number[]): Promise<ProjectGroupLinkRow[]> => liveLinksOf(c.db, projectIds, today());

/** The user's level in each project through the groups these live links share it with (absent: none). */
export async function sharedAccessLevels(c: Container, userId: number, links: ProjectGroupLinkRow[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (links.length === 0) return out;
  const groups = await findNamespacesByIds(c.db, [...new Set(links.map((l) => l.group_id))]);
  const levels = await accessLevelsInNamespaces(c, userId, groups);
  for (const l of links) {
    if (!levels.has(l.group_id)) continue;
    const level = Math.min(levels.get(l.group_id)!, l.group_access);
    if (level > (out.get(l.project_id) ?? 0)) out.set(l.project_id, level);
  }
  return out;
}

export interface SharedGroupView {
  link: ProjectGroupLinkRow;
  group: NamespaceRow;
  fullName: string;
}

/** Of these live links, those to groups the caller may see, per project (the full form's `shared_with_groups`). */
export async function visibleSharedGroups(c: Container, actor: Actor | null, links: ProjectGroupLinkRow[]): Promise<Map<number, SharedGroupView[]>> {
  const out = new Map<number, SharedGroupView[]>();
  if (links.length === 0) return out;
  const views = await withFullNames(c, await findNamespacesByIds(c.db, [...new Set(links.map((l) => l.group_id))]));
  const visible = new Map<number, { row: NamespaceRow; fullName: string }>();
  for (const v of views) if ((await groupAccess(c, actor, v.row)).canRead) visible.set(v.row.id, v);
  for (const link of links) {
    const g = visible.get(link.group_id);
    if (g) out.set(link.project_id, [...(out.get(link.project_id) ?? []), { link, group: g.row, fullName: g.fullName }]);
  }
  return out;
}

/** The groups a project is shared with (live links) and the groups above them: members of all of these are invited members. */
export async function sharedGroupChainIds(c: Container, projectId: number): Promise<number[]> {
  const links = await liveLinksOf(c.db, [projectId], today());
  if (links.length === 0) return [];
  const groups = await findNamespacesByIds(c.db, links.map((l) => l.group_id));
  const chain = await findNamespacesByFullPaths(c.db, [...new Set(groups.flatMap((g) => selfAndAncestorPaths(g.full_path_lower)))]);
  return chain.map((g) => g.id);
}
