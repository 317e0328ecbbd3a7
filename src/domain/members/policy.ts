// Roles, visibility and who may do what in a group, shared by every area that has members.
// Membership is inherited downwards: a member of a group has (at least) the same role in every
// group below it, and, once projects exist, in their projects. Expired memberships count for nothing.
import type { Container } from '../context.js';
import {
  findNamespaceById,
  findNamespacesByFullPaths,
  idsAtOrBelow,
  selfAndAncestorPaths,
  type NamespaceRow,
} from '../../db/repos/namespaces.js';
import { groupMembershipsOf, membershipsIn, type SourceType } from '../../db/repos/members.js';
import { isAdmin, type Actor } from '../auth/actor.js';
import { today } from '../shared/time.js';

export const ACCESS = { NONE: 0, GUEST: 10, REPORTER: 20, DEVELOPER: 30, MAINTAINER: 40, OWNER: 50 } as const;
/** Levels a group membership may have; projects take the same set. */
export const MEMBER_LEVELS = [10, 20, 30, 40, 50] as const;
export const ACCESS_NAMES: Record<number, string> = { 10: 'Guest', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' };

export const VISIBILITY = { private: 0, internal: 10, public: 20 } as const;
export type VisibilityName = keyof typeof VISIBILITY;
export const VISIBILITY_NAMES = ['private', 'internal', 'public'] as const;
export const visibilityName = (level: number): VisibilityName => (level >= 20 ? 'public' : level >= 10 ? 'internal' : 'private');

export type PolicySource = { type: 'Namespace'; id: number } | { type: 'Project'; id: number; namespaceId: number | null };

/** Ids of the group and the groups above it, nearest first. */
export async function selfAndAncestorIds(c: Container, group: NamespaceRow): Promise<number[]> {
  const rows = await findNamespacesByFullPaths(c.db, selfAndAncestorPaths(group.full_path_lower));
  return rows.sort((a, b) => b.full_path_lower.length - a.full_path_lower.length).map((r) => r.id);
}

/** The user's level in a group: the highest of its live memberships in the group and the groups above it. */
export async function accessLevelInGroup(c: Container, userId: number, group: NamespaceRow): Promise<number> {
  if (group.kind !== 'group') return group.owner_id === userId ? ACCESS.OWNER : ACCESS.NONE;
  const rows = await membershipsIn(c.db, userId, 'Namespace', await selfAndAncestorIds(c, group), today());
  return Math.max(ACCESS.NONE, ...rows.map((r) => r.access_level));
}

/**
 * The user's effective level in a source. For a project (when projects exist): its own
 * membership or the level inherited from its namespace, whichever is higher.
 */
export async function accessLevelIn(c: Container, userId: number, source: PolicySource): Promise<number> {
  if (source.type === 'Namespace') {
    const ns = await findNamespaceById(c.db, source.id);
    return ns ? accessLevelInGroup(c, userId, ns) : ACCESS.NONE;
  }
  const own = await membershipsIn(c.db, userId, 'Project' satisfies SourceType, [source.id], today());
  const direct = Math.max(ACCESS.NONE, ...own.map((r) => r.access_level));
  return source.namespaceId === null ? direct : Math.max(direct, await accessLevelIn(c, userId, { type: 'Namespace', id: source.namespaceId }));
}

/**
 * Groups a user is related to through membership: the groups they are a member of, every group
 * below those (inherited membership), and every group above them (which they may see, as the
 * reference lets a member of a subgroup see its parents).
 */
export async function relatedGroupIds(c: Container, userId: number, minLevel = 0): Promise<{ all: number[]; atOrBelow: number[] }> {
  const memberships = (await groupMembershipsOf(c.db, userId, today())).filter((m) => m.access_level >= minLevel);
  const paths = memberships.map((m) => m.full_path_lower);
  const atOrBelow = await idsAtOrBelow(c.db, paths);
  const above = await findNamespacesByFullPaths(c.db, [...new Set(paths.flatMap(selfAndAncestorPaths))]);
  return { all: [...new Set([...atOrBelow, ...above.map((r) => r.id)])], atOrBelow };
}

export interface GroupAccess {
  /** The actor's inherited level (0 for none or anonymous). */
  level: number;
  admin: boolean;
  canRead: boolean;
  /** Owner or admin: settings, members, tokens, deletion. */
  canAdmin: boolean;
}

/** Who the actor is to the group: read (public: anyone; internal: signed-in non-external; private: related members), admin. */
export async function groupAccess(c: Container, actor: Actor | null, group: NamespaceRow): Promise<GroupAccess> {
  const admin = isAdmin(actor);
  const level = actor ? await accessLevelInGroup(c, actor.user.id, group) : ACCESS.NONE;
  let canRead = admin || level >= ACCESS.GUEST || group.visibility_level >= VISIBILITY.public;
  if (!canRead && actor && group.visibility_level >= VISIBILITY.internal && actor.user.external !== 1) canRead = true;
  // A member of a group below this one may see it (and its path) too.
  if (!canRead && actor) canRead = (await relatedGroupIds(c, actor.user.id)).all.includes(group.id);
  return { level, admin, canRead, canAdmin: admin || level >= ACCESS.OWNER };
}

/** May create a subgroup under the group: its subgroup_creation_level (owner | maintainer) decides. */
export const canCreateSubgroup = (group: NamespaceRow, a: GroupAccess): boolean =>
  a.admin || a.level >= (group.subgroup_creation_level === 'owner' ? ACCESS.OWNER : ACCESS.MAINTAINER);

/** May create a top-level group. */
export const canCreateGroup = (actor: Actor): boolean =>
  isAdmin(actor) || (actor.user.can_create_group === 1 && actor.user.external !== 1);

/**
 * The lowest level that manages a source's members: owners for groups; maintainers for
 * projects, who may not grant (or touch) a level above their own.
 */
export const MANAGE_MEMBERS_LEVEL: Record<SourceType, number> = { Namespace: ACCESS.OWNER, Project: ACCESS.MAINTAINER };
