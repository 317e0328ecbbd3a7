// Who may see and act on a project's security findings and vulnerabilities (the reference's
// read_security_resource, create_vulnerability and admin_vulnerability in 15.1): developers and
// above. Someone who sees the project without the role gets 403; someone who does not, 404.
import { ACCESS } from '../members/policy.js';
import type { ProjectAccess } from '../projects/policy.js';

const developer = (a: ProjectAccess): boolean => a.signedIn && (a.admin || a.level >= ACCESS.DEVELOPER);

export const canReadSecurity = developer;
export const canCreateVulnerability = developer;
export const canAdminVulnerability = developer;
