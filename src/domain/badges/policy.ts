// Who may do what with badges (the reference's admin_project / admin_group and read_build).
//
// - Reading a project's or group's badges: whoever sees the project or group.
// - Adding, changing, removing, previewing: project maintainers and above; group owners and above.
// - The pipeline and coverage images: whoever may read the project's jobs (read_build); everyone
//   else gets 404, as the reference's project controllers answer.
import type { GroupAccess } from '../members/policy.js';
import type { CiAccess } from '../ci/policy.js';
import { canAdminProject, type ProjectAccess } from '../projects/policy.js';

export const canManageProjectBadges = (a: ProjectAccess): boolean => canAdminProject(a);
export const canManageGroupBadges = (a: GroupAccess): boolean => a.canAdmin;
export const canSeeBadgeImages = (a: CiAccess): boolean => a.read;
