// Who may do what with a project (the reference's ProjectPolicy, in the parts Anvil has so far).
// Roles come from the members policy: a direct project membership, the owner of a personal
// namespace, or a membership in the project's group or a group above it, whichever is highest.
import type { Container } from '../context.js';
import type { NamespaceRow } from '../../db/repos/namespaces.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { isAdmin, type Actor } from '../auth/actor.js';
import { forbidden } from '../errors.js';
import { ACCESS, VISIBILITY, accessLevelIn, accessLevelInGroup } from '../members/policy.js';
import { sharedAccessLevels } from './shared_access.js';

export interface ProjectAccess {
  /** The actor's effective role (0 for none or anonymous). */
  level: number;
  admin: boolean;
  signedIn: boolean;
  canRead: boolean;
}

/** Visibility levels a signed-in user sees without a role: internal and public, or public only for external users. */
export const visibleLevelsFor = (actor: Actor): number[] =>
  actor.user.external === 1 ? [VISIBILITY.public] : [VISIBILITY.internal, VISIBILITY.public];

export async function projectAccess(c: Container, actor: Actor | null, p: ProjectRow): Promise<ProjectAccess> {
  const admin = isAdmin(actor);
  // Membership (own or inherited from the namespace) or a group the project is shared with, whichever is higher.
  const level = actor
    ? Math.max(
        await accessLevelIn(c, actor.user.id, { type: 'Project', id: p.id, namespaceId: p.namespace_id }),
        (await sharedAccessLevels(c, actor.user.id, [p.id])).get(p.id) ?? ACCESS.NONE,
      )
    : ACCESS.NONE;
  const canRead =
    admin ||
    level >= ACCESS.GUEST ||
    p.visibility_level >= VISIBILITY.public ||
    (actor !== null && visibleLevelsFor(actor).includes(p.visibility_level));
  return { level, admin, signedIn: actor !== null, canRead };
}

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

/** create_merge_request_in: anyone with guest access (members, or signed-in users who can read it) while merge requests are on. */
export const canCreateMergeRequestIn = (p: ProjectRow, a: ProjectAccess): boolean =>
  a.signedIn && a.canRead && p.archived !== 1 && featureAvailable(p.merge_requests_access_level, a);

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
