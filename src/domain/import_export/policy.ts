// Who may export and import projects (the reference: admin_project for export and its download;
// import needs the right to create projects in the target namespace).
import type { ProjectAccess } from '../projects/policy.js';
import { canAdminProject } from '../projects/policy.js';

/** export_project: maintainers, owners and admins start, watch and download exports. */
export const canExportProject = (a: ProjectAccess): boolean => canAdminProject(a);

/** read_project_import_status: whoever may administer the project (the importer is its owner or maintainer). */
export const canReadImportStatus = (a: ProjectAccess): boolean => canAdminProject(a);

export { canCreateProjectIn as canImportInto } from '../projects/policy.js';
