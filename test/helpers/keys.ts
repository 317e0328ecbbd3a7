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

/** Project with its access (lists and GET /projects/:id when signed in, a group's detail). */
export const PROJECT_FULL_KEYS = [
  ...PROJECT_SIMPLE_KEYS, '_links', 'allow_merge_on_skipped_pipeline', 'archived', 'autoclose_referenced_issues', 'can_create_merge_request_in',
  'ci_default_git_depth', 'ci_forward_deployment_enabled', 'ci_separated_caches', 'container_registry_access_level',
  'container_registry_enabled', 'container_registry_image_prefix', 'creator_id', 'import_error', 'import_status', 'issues_enabled',
  'jobs_enabled', 'marked_for_deletion_at', 'marked_for_deletion_on', 'merge_commit_template', 'merge_method', 'merge_requests_enabled',
  'namespace', 'only_allow_merge_if_all_discussions_are_resolved', 'only_allow_merge_if_pipeline_succeeds', 'open_issues_count', 'owner',
  'permissions', 'public_jobs', 'remove_source_branch_after_merge', 'request_access_enabled', 'resolve_outdated_diff_discussions',
  'restrict_user_defined_variables', 'security_and_compliance_access_level', 'shared_runners_enabled', 'shared_with_groups',
  'snippets_enabled', 'squash_commit_template', 'squash_option', 'suggestion_commit_message', 'visibility', 'wiki_enabled',
  // [adv]
  'approvals_before_merge', 'auto_devops_deploy_strategy', 'auto_devops_enabled', 'external_authorization_classification_label',
  'mirror', 'packages_enabled', 'service_desk_address', 'service_desk_enabled',
].sort();
/** As a maintainer or owner sees it (an administrator also gets `repository_storage`). */
export const PROJECT_FULL_KEYS_MAINTAINER = [...PROJECT_FULL_KEYS, 'runners_token'].sort();

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
