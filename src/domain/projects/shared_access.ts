// What sharing a project with a group gives: the group's members (inherited membership
// included) reach the project at the lower of their level in the group and the link's
// group_access. Expired links count for nothing. Kept apart from sharing.ts (the share and
// unshare operations) so that the project policy can use it without an import cycle.
import type { Container } from '../context.js';
import { findNamespacesByFullPaths, findNamespacesByIds, selfAndAncestorPaths, type NamespaceRow } from '../../db/repos/namespaces.js';
import { liveLinksOf, type ProjectGroupLinkRow } from '../../db/repos/project_group_links.js';
import type { Actor } from '../auth/actor.js';
import { withFullNames } from '../groups/find.js';
import { accessLevelInGroup, groupAccess } from '../members/policy.js';
import { today } from '../shared/time.js';

/** The user's level in each of these projects through the groups they are shared with (absent: none). */
export async function sharedAccessLevels(c: Container, userId: number, projectIds: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  const links = await liveLinksOf(c.db, projectIds, today());
  if (links.length === 0) return out;
  const groups = new Map((await findNamespacesByIds(c.db, [...new Set(links.map((l) => l.group_id))])).map((g) => [g.id, g]));
  const levels = new Map<number, number>();
  for (const l of links) {
    const group = groups.get(l.group_id);
    if (!group) continue;
    if (!levels.has(group.id)) levels.set(group.id, await accessLevelInGroup(c, userId, group));
    const level = Math.min(levels.get(group.id)!, l.group_access);
    if (level > (out.get(l.project_id) ?? 0)) out.set(l.project_id, level);
  }
  return out;
}

export interface SharedGroupView {
  link: ProjectGroupLinkRow;
  group: NamespaceRow;
  fullName: string;
}

/** The live links of each project to groups the caller may see (the full form's `shared_with_groups`). */
export async function visibleSharedGroups(c: Container, actor: Actor | null, projectIds: number[]): Promise<Map<number, SharedGroupView[]>> {
  const out = new Map<number, SharedGroupView[]>();
  const links = await liveLinksOf(c.db, projectIds, today());
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
