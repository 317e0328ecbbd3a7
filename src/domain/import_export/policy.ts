// Who may export and import projects (the reference: admin_project for export and its download;
// an import needs the right to create projects in the target namespace, checked by project
// creation; its status is for whoever may read the project).
import type { ProjectAccess } from '../projects/policy.js';
import { canAdminProject, isProjectOwner } from '../projects/policy.js';
import type { UserRow } from '../../db/repos/users.js';

/** export_project: maintainers, owners and admins start, watch and download exports. */
export const canExportProject = (a: ProjectAccess): boolean => canAdminProject(a);

/** The reference exports project members only when an owner (or admin) asks for the export. */
export const exportsMembers = (a: ProjectAccess): boolean => isProjectOwner(a);

/** The reference maps exported members to users here only when an administrator imports. */
export const mapsImportedMembers = (importer: UserRow | undefined): boolean => importer?.admin === 1;
