/** Scopes a personal (or impersonation, project, group) access token may carry. */
export const PAT_SCOPES = ['api', 'read_api', 'read_user', 'read_repository', 'write_repository', 'sudo', 'admin_mode'];
