// Who may do what with alerts (spec, Authentication 6; the reference's admin_operations and
// *_alert_management_alert abilities).
//
// - Setting up alert integrations (list, create, change, reset the key, delete): maintainers and above.
// - Sending a test alert, reading alerts and changing their status: developers and above.
// - Receiving an alert: whoever holds the integration's key (no user).
import { ACCESS } from '../members/policy.js';
import type { ProjectAccess } from '../projects/policy.js';

export const canManageAlertIntegrations = (a: ProjectAccess): boolean => a.signedIn && (a.admin || a.level >= ACCESS.MAINTAINER);
export const canSendTestAlert = (a: ProjectAccess): boolean => a.signedIn && (a.admin || a.level >= ACCESS.DEVELOPER);
export const canReadAlerts = (a: ProjectAccess): boolean => a.signedIn && (a.admin || a.level >= ACCESS.DEVELOPER);
export const canUpdateAlerts = canReadAlerts;
