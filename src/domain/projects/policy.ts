// Who may do what with a project (the reference's ProjectPolicy, in the parts Anvil has so far).
// Roles come from the members policy: a direct project membership, the owner of a personal
// namespace, or a membership in the project's group or a group above it, whichever is highest.
import type { Container } from '../context.js';
import { findDeployKeyLink } from '../../db/repos/keys.js';
import type { NamespaceRow } from '../../db/repos/namespaces.js';
import type { ProjectContext } from '../../db/repos/project_context.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { isAdmin, isBlocked, type Actor } from '../auth/actor.js';
import { forbidden } from '../errors.js';
import { ACCESS, VISIBILITY, accessLevelIn, accessLevelInGroup, visibleLevelsFor } from '../members/policy.js';
import { liveLinksOfProjects, sharedAccessLevels } from './shared_access.js';

export interface ProjectAccess {
  /** The actor's effective role (0 for none, anonymous or blocked). */
  level: number;
  admin: boolean;
  signedIn: boolean;
  /**
   * public_access: the project is public, or internal and the caller a signed-in user who is not
   * external. It opens reading the project and its code to non-members.
   */
  publicAccess: boolean;
  /** read_project: admins, members (guest and above), public access. */
  canRead: boolean;
}

/** The user's effective role in the project: their own membership, the one inherited from the namespace, or a group the project is shared with, whichever is highest. */
export async function roleInProject(c: Container, userId: number, p: ProjectRow): Promise<number> {
  return Math.max(
    await accessLevelIn(c, userId, { type: 'Project', id: p.id, namespaceId: p.namespace_id }),
    (await sharedAccessLevels(c, userId, await liveLinksOfProjects(c, [p.id]))).get(p.id) ?? ACCESS.NONE,
  );
}

/**
 * roleInProject from the memberships read with the project (project_context.ts), given the level
 * through the groups it is shared with: the personal namespace's owner is its owner; a group's
 * members keep their level in the groups below.
 */
export function roleFromContext(userId: number, ctx: ProjectContext, sharedLevel: number): number {
  const inNamespace = ctx.ns_kind === 'group' ? (ctx.group_level ?? ACCESS.NONE) : ctx.ns_owner_id === userId ? ACCESS.OWNER : ACCESS.NONE;
  return Math.max(ctx.member_level ?? ACCESS.NONE, inNamespace, sharedLevel);
}

/**
 * Who the actor is to a project, given their role in it. A blocked account may do nothing (the
 * reference refuses it the API and git altogether), so it has no role, no admin rights and no
 * public access here.
 */
export function accessFor(actor: Actor | null, p: ProjectRow, role: number): ProjectAccess {
  if (actor && isBlocked(actor.user)) return { level: ACCESS.NONE, admin: false, signedIn: true, publicAccess: false, canRead: false };
  const admin = isAdmin(actor);
  const level = actor ? role : ACCESS.NONE;
  const publicAccess = visibleLevelsFor(actor).includes(p.visibility_level);
  return { level, admin, signedIn: actor !== null, publicAccess, canRead: admin || level >= ACCESS.GUEST || publicAccess };
}

export async function projectAccess(c: Container, actor: Actor | null, p: ProjectRow): Promise<ProjectAccess> {
  if (actor?.deployKey) return deployKeyAccess(c, actor.deployKey.id, p);
  return accessFor(actor, p, actor ? await roleInProject(c, actor.user.id, p) : ACCESS.NONE);
}

/**
 * A deploy key reads the projects it is enabled for and public ones (as a guest would); it
 * pushes where its link has can_push, as a developer would outside protected refs.
 */
async function deployKeyAccess(c: Container, keyId: number, p: ProjectRow): Promise<ProjectAccess> {
  const link = await findDeployKeyLink(c.db, p.id, keyId);
  const level = !link ? ACCESS.NONE : link.can_push === 1 ? ACCESS.DEVELOPER : ACCESS.REPORTER;
  const publicAccess = p.visibility_level === VISIBILITY.public;
  return { level, admin: false, signedIn: true, publicAccess, canRead: level > ACCESS.NONE || publicAccess };
}

// ---- abilities (the reference's ProjectPolicy names in the comments) ----

/** read_project: see the project at all (else it is 404). */
export const canReadProject = (a: ProjectAccess): boolean => a.canRead;
/** download_code / read_code: reporters and above, admins, and public access (the repository feature is always on). */
export const canReadCode = (a: ProjectAccess): boolean => a.admin || a.level >= ACCESS.REPORTER || a.publicAccess;
/** push_code: developers and above, admins; never in an archived project. */
export const canPushCode = (p: ProjectRow, a: ProjectAccess): boolean => p.archived !== 1 && (a.admin || a.level >= ACCESS.DEVELOPER);
/** push_to_delete_protected_branch: maintainers and above, admins. */
export const canDeleteProtectedBranch = (a: ProjectAccess): boolean => a.admin || a.level >= ACCESS.MAINTAINER;
/** admin_project: maintainers, owners, admins (settings). */
export const canAdminProject = (a: ProjectAccess): boolean => a.admin || a.level >= ACCESS.MAINTAINER;
/** owner_access: rename, change visibility, transfer, delete (the reference gives these to owners only). */
export const isProjectOwner = (a: ProjectAccess): boolean => a.admin || a.level >= ACCESS.OWNER;
/** read_statistics: reporters and above. */
export const canReadStatistics = (a: ProjectAccess): boolean => a.admin || a.level >= ACCESS.REPORTER;

/** A project feature (issues, wiki, …) as the caller sees it: `private` features are for members only. */
export function featureAvailable(accessLevel: string, a: ProjectAccess): boolean {
  if (accessLevel === 'disabled') return false;
  if (accessLevel === 'private') return a.admin || a.level >= ACCESS.GUEST;
  return true;
}

/**
 * create_merge_request_in: guest access (members, or signed-in users with public access) and
 * download_code, while merge requests are on and the project is not archived.
 */
export const canCreateMergeRequestIn = (p: ProjectRow, a: ProjectAccess): boolean =>
  a.signedIn && a.canRead && canReadCode(a) && p.archived !== 1 && featureAvailable(p.merge_requests_access_level, a);

/**
 * An archived project is read-only for its content, as the reference's policy has it: pushes,
 * uploads, issues, merge requests, notes, labels, pipelines, jobs, releases, wiki, snippets…
 * refuse with 403. The project itself stays manageable: settings, members, sharing, hooks,
 * transfer, unarchive, delete and restore do not call this. Every content write calls it once it
 * has found the project.
 */
export function ensureWritable(p: ProjectRow): void {
  if (p.archived === 1) throw forbidden();
}

const CREATION_LEVEL: Record<string, number> = { developer: ACCESS.DEVELOPER, maintainer: ACCESS.MAINTAINER };

/**
 * create_projects in a namespace: its owner for a personal namespace; for a group, members at
 * the group's project_creation_level (developer or maintainer; `noone` leaves only admins).
 */
export async function canCreateProjectIn(c: Container, actor: Actor, ns: NamespaceRow): Promise<boolean> {
  if (isAdmin(actor)) return true;
  if (ns.kind !== 'group') return ns.owner_id === actor.user.id;
  const needed = CREATION_LEVEL[ns.project_creation_level];
  if (needed === undefined) return false;
  return (await accessLevelInGroup(c, actor.user.id, ns)) >= needed;
}
