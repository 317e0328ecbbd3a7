// The key sets (sorted) of the reference's entities that several test files check a response
// against: one list per entity, here, so a shape changes in one place.

export const USER_BASIC_KEYS = ['avatar_url', 'id', 'name', 'state', 'username', 'web_url'];

/** Commit (the commits, branches and files APIs). */
export const COMMIT_KEYS = [
  'author_email', 'author_name', 'authored_date', 'committed_date', 'committer_email', 'committer_name', 'created_at', 'id', 'message',
  'parent_ids', 'short_id', 'title', 'trailers', 'web_url',
];

/** BasicProjectDetails (lists for simple=true, forks, stars…). */
export const PROJECT_SIMPLE_KEYS = [
  'avatar_url', 'created_at', 'default_branch', 'description', 'forks_count', 'http_url_to_repo', 'id', 'last_activity_at',
  'name', 'name_with_namespace', 'path', 'path_with_namespace', 'readme_url', 'ssh_url_to_repo', 'star_count', 'tag_list',
  'topics', 'web_url',
];

/** PipelineBasic (pipeline lists, a job's `pipeline`). */
export const PIPELINE_BASIC_KEYS = ['created_at', 'id', 'iid', 'project_id', 'ref', 'sha', 'source', 'status', 'updated_at', 'web_url'];

/** PersonalAccessToken and its kin. */
export const TOKEN_KEYS = ['active', 'created_at', 'expires_at', 'id', 'last_used_at', 'name', 'revoked', 'scopes', 'user_id'];
export const TOKEN_WITH_TOKEN_KEYS = [...TOKEN_KEYS, 'token'].sort();
export const IMPERSONATION_KEYS = [...TOKEN_KEYS, 'impersonation'].sort();
export const IMPERSONATION_WITH_TOKEN_KEYS = [...TOKEN_KEYS, 'impersonation', 'token'].sort();
/** ResourceAccessToken: group and project access tokens. */
export const RESOURCE_TOKEN_KEYS = [...TOKEN_KEYS, 'access_level'].sort();
export const RESOURCE_TOKEN_WITH_TOKEN_KEYS = [...RESOURCE_TOKEN_KEYS, 'token'].sort();
