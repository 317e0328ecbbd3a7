// Who may do what with releases (the reference's ProjectPolicy and Releases::ReleasePolicy):
//
// - read_release: whoever may see the project (guests, and the public on a public project).
// - download_code (the tag, its commit and the source archives of a release; GET of one
//   release): reporters and above, and public access.
// - create/update/destroy_release: developers and above, not in an archived project, and only
//   for a tag they may create when it is protected (the reference's protected_tag rule).
import type { Container } from '../context.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { canPushCode, canReadCode, canReadProject, type ProjectAccess } from '../projects/policy.js';
import { canCreateTag, loadTagProtection } from '../protected_tags/policy.js';

export const canReadReleases = (a: ProjectAccess): boolean => canReadProject(a);

export const canDownloadCode = (a: ProjectAccess): boolean => canReadCode(a);

/** create_release on the project: developers and above, not in an archived project. */
export const canCreateReleases = (actor: Actor | null, project: ProjectRow, a: ProjectAccess): boolean => !!actor && canPushCode(project, a);

/** create_release / update_release / destroy_release on this tag. */
export async function canManageRelease(c: Container, actor: Actor | null, project: ProjectRow, a: ProjectAccess, tag: string): Promise<boolean> {
  if (!actor || !canCreateReleases(actor, project, a)) return false;
  const set = await loadTagProtection(c, project.id);
  return canCreateTag(c, { actor, access: a }, project, set, tag);
}
