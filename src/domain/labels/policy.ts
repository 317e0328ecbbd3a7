// Who may do what with labels (the reference's read_label and admin_label).
//
// - Reading a project's labels: whoever sees the project; a group's: whoever sees the group.
// - Creating, changing, removing, prioritising: reporters and above (of the project, or of the
//   group for group labels), admins; never in an archived project.
// - Promoting a project label: reporters of the project's group and above.
import type { GroupAccess } from '../members/policy.js';
import { ACCESS } from '../members/policy.js';
import type { ProjectAccess } from '../projects/policy.js';

export const canAdminProjectLabels = (a: ProjectAccess): boolean => a.admin || a.level >= ACCESS.REPORTER;
export const canAdminGroupLabels = (a: GroupAccess): boolean => a.admin || a.level >= ACCESS.REPORTER;
