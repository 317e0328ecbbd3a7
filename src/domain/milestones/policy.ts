// Who may do what with milestones (the reference's read_milestone and admin_milestone).
//
// - Reading a project's milestones: whoever sees the project while its issues or merge requests
//   are on for them; a group's: whoever sees the group.
// - Creating, changing, closing, deleting, promoting: reporters and above, admins; never in an
//   archived project.
import type { ProjectRow } from '../../db/repos/projects.js';
import { ACCESS, type GroupAccess } from '../members/policy.js';
import { featureAvailable, type ProjectAccess } from '../projects/policy.js';

export const canReadProjectMilestones = (p: ProjectRow, a: ProjectAccess): boolean =>
  a.canRead && (featureAvailable(p.issues_access_level, a) || featureAvailable(p.merge_requests_access_level, a));
export const canAdminProjectMilestones = (a: ProjectAccess): boolean => a.admin || a.level >= ACCESS.REPORTER;
export const canAdminGroupMilestones = (a: GroupAccess): boolean => a.admin || a.level >= ACCESS.REPORTER;
