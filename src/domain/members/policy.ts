// Roles, visibility and who may do what in a group, shared by every area that has members.
// Membership is inherited downwards: a member of a group has (at least) the same role in every
// group below it, and, once projects exist, in their projects. Expired memberships count for nothing.
import type { Container } from '../context.js';
import {
  findNamespaceById,
  findNamespacesByFullPaths,
  selfAndAncestorPaths,
  type NamespaceRow,
} from '../../db/repos/namespaces.js';
import { groupIdsAtOrBelowMemberships, groupMembershipsByPaths, groupMembershipsOf, membershipsIn, type SourceType } from '../../db/repos/members.js';
import type { AuthorizedScope } from '../../db/repos/projects.js';
import { isAdmin, isBlocked, type Actor } from '../auth/actor.js';
import { today } from '../../shared/time.js';

export const ACCESS = { NONE: 0, GUEST: 10, REPORTER: 20, DEVELOPER: 30, MAINTAINER: 40, OWNER: 50 } as const;
/** Levels a group membership may have; projects take the same set. */
export const MEMBER_LEVELS = [10, 20, 30, 40, 50] as const;
export const ACCESS_NAMES: Record<number, string> = { 10: 'Guest', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' };

export const VISIBILITY = { private: 0, internal: 10, public: 20 } as const;
export type VisibilityName = keyof typeof VISIBILITY;
export const VISIBILITY_NAMES = ['private', 'internal', 'public'] as const;
export const visibilityName = (level: number): VisibilityName => (level >= 20 ? 'public' : level >= 10 ? 'internal' : 'private');

/** Visibility levels open to the caller without a role (public access): public, and internal for signed-in users who are not external. */
export const visibleLevelsFor = (actor: Actor | null): number[] =>
  actor === null || actor.user.external === 1 ? [VISIBILITY.public] : [VISIBILITY.internal, VISIBILITY.public];

export type PolicySource = { type: 'Namespace'; id: number } | { type: 'Project'; id: number; namespaceId: number | null };

/** Ids of the group and the groups above it, nearest first. */
export async function selfAndAncestorIds(c: Container, group: NamespaceRow): Promise<number[]> {
  const rows = await findNamespacesByFullPaths(c.db, selfAndAncestorPaths(group.full_path_lower));
  return rows.sort((a, b) => b.full_path_lower.length - a.full_path_lower.length).map((r) => r.id);
}

/** The user's level in a group: the highest of its live memberships in the group and the groups above it. */
export async function accessLevelInGroup(c: Container, userId: number, group: NamespaceRow): Promise<number> {
  return (await accessLevelsInNamespaces(c, userId, [group])).get(group.id)!;
}

/**
 * accessLevelInGroup for many namespaces in one query: a group's level is the highest live
 * membership in it or a group above it; a personal namespace gives its owner the owner role.
 */
export async function accessLevelsInNamespaces(c: Container, userId: number, namespaces: NamespaceRow[]): Promise<Map<number, number>> {
  const chainOf = (n: NamespaceRow) => selfAndAncestorPaths(n.full_path_lower);
  const paths = [...new Set(namespaces.filter((n) => n.kind === 'group').flatMap(chainOf))];
  const byPath = new Map<string, number>();
  for (const m of await groupMembershipsByPaths(c.db, userId, paths, today())) {
    byPath.set(m.full_path_lower, Math.max(byPath.get(m.full_path_lower) ?? ACCESS.NONE, m.access_level));
  }
  const out = new Map<number, number>();
  for (const n of namespaces) {
    if (n.kind !== 'group') out.set(n.id, n.owner_id === userId ? ACCESS.OWNER : ACCESS.NONE);
    else out.set(n.id, Math.max(ACCESS.NONE, ...chainOf(n).map((p) => byPath.get(p) ?? ACCESS.NONE)));
  }
  return out;
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

/** Groups in which the user has at least `minLevel`: those they are a member of and every group below them (inherited membership). */
export const groupIdsAtOrBelow = (c: Container, userId: number, minLevel = 0): Promise<number[]> =>
  groupIdsAtOrBelowMemberships(c.db, userId, minLevel, today());

/**
 * The projects a user has at least `minAccess` in, in the terms of the project lists' condition
 * (db/repos/projects.ts authorizedCondition): direct membership, their own namespace, a group at or
 * above the project's namespace, or a group it is shared with.
 */
export const authorizedScope = (actor: Actor, minAccess: number): AuthorizedScope => ({
  userId: actor.user.id,
  minAccess,
  today: today(),
  personalNamespaceId: actor.user.namespace_id,
});

/**
 * Groups a user is related to through membership: the groups they are a member of, every group
 * below those (inherited membership), and every group above them (which they may see, as the
 * reference lets a member of a subgroup see its parents).
 */
export async function relatedGroupIds(c: Container, userId: number): Promise<number[]> {
  const paths = (await groupMembershipsOf(c.db, userId, today())).map((m) => m.full_path_lower);
  if (paths.length === 0) return [];
  const above = await findNamespacesByFullPaths(c.db, [...new Set(paths.flatMap(selfAndAncestorPaths))]);
  return [...new Set([...(await groupIdsAtOrBelow(c, userId)), ...above.map((r) => r.id)])];
}

export interface GroupAccess {
  /** The actor's inherited level (0 for none or anonymous). */
  level: number;
  admin: boolean;
  canRead: boolean;
  /** Owner or admin: settings, members, tokens, deletion. */
  canAdmin: boolean;
}

/**
 * Who the actor is to the group, given their role in it and whether they are a member of a group
 * below it (`related`): read_group (public: anyone; internal: signed-in users who are not external;
 * private: members, and members of a group below, who may see its path), admin_group (owners).
 * A blocked account may do nothing.
 */
export function groupAccessFor(actor: Actor | null, group: NamespaceRow, role: number, related: boolean): GroupAccess {
  if (actor && isBlocked(actor.user)) return { level: ACCESS.NONE, admin: false, canRead: false, canAdmin: false };
  const admin = isAdmin(actor);
  const level = actor ? role : ACCESS.NONE;
  const publicAccess = visibleLevelsFor(actor).includes(group.visibility_level);
  return { level, admin, canRead: admin || level >= ACCESS.GUEST || publicAccess || (actor !== null && related), canAdmin: admin || level >= ACCESS.OWNER };
}

export async function groupAccess(c: Container, actor: Actor | null, group: NamespaceRow): Promise<GroupAccess> {
  if (!actor) return groupAccessFor(actor, group, ACCESS.NONE, false);
  const role = await accessLevelInGroup(c, actor.user.id, group);
  const quick = groupAccessFor(actor, group, role, false);
  // Only a caller who may not read it otherwise needs the (costlier) look below.
  return quick.canRead ? quick : groupAccessFor(actor, group, role, (await relatedGroupIds(c, actor.user.id)).includes(group.id));
}

/** May create a subgroup under the group: its subgroup_creation_level (owner | maintainer) decides. */
export const canCreateSubgroup = (group: NamespaceRow, a: GroupAccess): boolean =>
  a.admin || a.level >= (group.subgroup_creation_level === 'owner' ? ACCESS.OWNER : ACCESS.MAINTAINER);

/** May create a top-level group. */
export const canCreateGroup = (actor: Actor): boolean =>
  isAdmin(actor) || (actor.user.can_create_group === 1 && actor.user.external !== 1);

/** The lowest level that manages a source's members: owners for groups; maintainers for projects. */
const MANAGE_MEMBERS_LEVEL: Record<SourceType, number> = { Namespace: ACCESS.OWNER, Project: ACCESS.MAINTAINER };

/** Who the actor is to a source whose members they act on. */
export interface MemberManager {
  level: number;
  admin: boolean;
}

/** admin_group_member / admin_project_member: owners of a group, maintainers of a project (and above), admins. */
export const canManageMembers = (type: SourceType, a: MemberManager): boolean => a.admin || a.level >= MANAGE_MEMBERS_LEVEL[type];

/** A manager may not grant, or touch, a level above their own; admins may. */
export const canActOnLevel = (a: MemberManager, level: number): boolean => a.admin || level <= a.level;
