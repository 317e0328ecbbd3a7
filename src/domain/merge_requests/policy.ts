// Who may do what with merge requests (the reference's MergeRequestPolicy, in the parts Anvil has).
import type { ProjectRow } from '../../db/repos/projects.js';
import type { MergeRequestRow } from '../../db/repos/merge_requests.js';
import type { Actor } from '../auth/actor.js';
import { ACCESS } from '../members/policy.js';
import { canPushCode, canReadCode, featureAvailable, isProjectOwner, type ProjectAccess } from '../projects/policy.js';

/** read_merge_request: the feature is open to the caller and they may read the code. */
export const canReadMergeRequests = (p: ProjectRow, a: ProjectAccess): boolean =>
  a.canRead && canReadCode(a) && featureAvailable(p.merge_requests_access_level, a);

/** create_merge_request_from: push access to the source project, the feature on. */
export const canCreateMergeRequestFrom = (p: ProjectRow, a: ProjectAccess): boolean =>
  canPushCode(p, a) && featureAvailable(p.merge_requests_access_level, a);

/** update_merge_request: developers and up, and the request's author; never in an archived project. */
export const canUpdateMergeRequest = (p: ProjectRow, a: ProjectAccess, actor: Actor, mr: MergeRequestRow): boolean =>
  p.archived !== 1 && (a.admin || a.level >= ACCESS.DEVELOPER || mr.author_id === actor.user.id);

/** admin_merge_request: assignees, reviewers, milestone, lock — developers and up. */
export const canAdminMergeRequest = (p: ProjectRow, a: ProjectAccess): boolean => p.archived !== 1 && (a.admin || a.level >= ACCESS.DEVELOPER);

/** destroy_merge_request: owners and admins. */
export const canDestroyMergeRequest = (a: ProjectAccess): boolean => isProjectOwner(a);
