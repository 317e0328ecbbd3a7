/** Scopes a personal (or impersonation, project, group) access token may carry. */
export const PAT_SCOPES = ['api', 'read_api', 'read_user', 'read_repository', 'write_repository', 'sudo', 'admin_mode', 'create_runner'];

/** Scopes only an administrator's token may carry (sudo and admin mode act on other users). */
export const ADMIN_ONLY_SCOPES = ['sudo', 'admin_mode'];
