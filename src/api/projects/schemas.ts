import type { PageInput } from '../../http/pagination.js';
// The Project resource in its two forms (spec "Project"), and the parameters of the project routes.
import { Type as T } from '@sinclair/typebox';
import { CustomAttributesField, CustomAttributesFilterParam } from '../custom_attributes/schemas.js';
import { CommaList, Nullable, OneOf, Timestamp } from '../schemas.js';

/** The reference's ProjectIdentity entity (job-token lookups, export and import statuses start with it). */
export const ProjectIdentity = T.Object({
  id: T.Integer(),
  description: Nullable(T.String()),
  name: T.String(),
  name_with_namespace: T.String(),
  path: T.String(),
  path_with_namespace: T.String(),
  created_at: Timestamp,
});

const VISIBILITIES = ['private', 'internal', 'public'] as const;
const FEATURE_LEVELS = ['disabled', 'private', 'enabled'] as const;

/** Simple form: anonymous callers, `simple=true`, and `forked_from_project`. */
const SIMPLE_FIELDS = {
  id: T.Integer(),
  description: Nullable(T.String()),
  default_branch: Nullable(T.String()),
  ssh_url_to_repo: T.String(),
  http_url_to_repo: T.String(),
  web_url: T.String(),
  readme_url: Nullable(T.String()),
  tag_list: T.Array(T.String()),
  topics: T.Array(T.String()),
  name: T.String(),
  name_with_namespace: T.String(),
  path: T.String(),
  path_with_namespace: T.String(),
  created_at: Timestamp,
  last_activity_at: Timestamp,
  forks_count: T.Integer(),
  avatar_url: Nullable(T.String()),
  star_count: T.Integer(),
};

export const ProjectSimple = T.Object(SIMPLE_FIELDS);

const Access = Nullable(T.Object({ access_level: T.Integer(), notification_level: T.Integer() }));

/** Fields the full form always carries. */
const FULL_FIELDS = {
  visibility: T.String(),
  owner: Nullable(T.Object({ id: T.Integer(), name: T.String(), created_at: Timestamp })),
  issues_enabled: T.Boolean(),
  merge_requests_enabled: T.Boolean(),
  jobs_enabled: T.Boolean(),
  wiki_enabled: T.Boolean(),
  snippets_enabled: T.Boolean(),
  can_create_merge_request_in: T.Boolean(),
  resolve_outdated_diff_discussions: T.Boolean(),
  container_registry_enabled: T.Boolean(),
  container_registry_access_level: T.String(),
  security_and_compliance_access_level: T.String(),
  open_issues_count: T.Integer(),
  creator_id: Nullable(T.Integer()),
  namespace: T.Object({ id: T.Integer(), name: T.String(), path: T.String(), kind: T.String(), full_path: T.String() }),
  import_status: T.String(),
  import_error: Nullable(T.String()),
  permissions: T.Object({ project_access: Access, group_access: Access }),
  archived: T.Boolean(),
  shared_runners_enabled: T.Boolean(),
  ci_default_git_depth: Nullable(T.Integer()),
  ci_forward_deployment_enabled: T.Boolean(),
  ci_separated_caches: T.Boolean(),
  public_jobs: T.Boolean(),
  shared_with_groups: T.Array(
    T.Object({
      group_id: T.Integer(),
      group_name: T.String(),
      group_full_path: T.String(),
      group_access_level: T.Integer(),
      expires_at: Nullable(T.String()),
    }),
  ),
  only_allow_merge_if_pipeline_succeeds: T.Boolean(),
  allow_merge_on_skipped_pipeline: T.Boolean(),
  restrict_user_defined_variables: T.Boolean(),
  only_allow_merge_if_all_discussions_are_resolved: T.Boolean(),
  remove_source_branch_after_merge: T.Boolean(),
  request_access_enabled: T.Boolean(),
  merge_method: T.String(),
  squash_option: T.String(),
  autoclose_referenced_issues: T.Boolean(),
  suggestion_commit_message: Nullable(T.String()),
  merge_commit_template: Nullable(T.String()),
  squash_commit_template: Nullable(T.String()),
  marked_for_deletion_at: Nullable(T.String()),
  marked_for_deletion_on: Nullable(T.String()),
  container_registry_image_prefix: T.String(),
  // [adv]: the reference's values for a project that uses none of these features.
  approvals_before_merge: T.Integer(),
  auto_devops_enabled: T.Boolean(),
  auto_devops_deploy_strategy: T.String(),
  mirror: T.Boolean(),
  external_authorization_classification_label: Nullable(T.String()),
  packages_enabled: T.Boolean(),
  service_desk_enabled: T.Boolean(),
  service_desk_address: Nullable(T.String()),
  _links: T.Object({
    self: T.String(),
    // Only while the feature is available to the caller, as the reference's entity.
    issues: T.Optional(T.String()),
    merge_requests: T.Optional(T.String()),
    repo_branches: T.String(),
    labels: T.String(),
    events: T.String(),
    members: T.String(),
    cluster_agents: T.String(),
  }),
};

/** Fields the full form carries only sometimes. */
const CONDITIONAL_FIELDS = {
  /** Maintainers and above. */
  runners_token: T.Optional(T.String()),
  /** Administrators ([adv]; the one storage). */
  repository_storage: T.Optional(T.String()),
  /** `license=true` on GET /projects/:id. */
  license_url: T.Optional(Nullable(T.String())),
  license: T.Optional(
    Nullable(T.Object({ key: T.String(), name: T.String(), nickname: Nullable(T.String()), html_url: T.String(), source_url: Nullable(T.String()) })),
  ),
  /** `statistics=true` and reporter or higher. */
  statistics: T.Optional(
    T.Object({
      commit_count: T.Integer(),
      storage_size: T.Integer(),
      repository_size: T.Integer(),
      wiki_size: T.Integer(),
      lfs_objects_size: T.Integer(),
      job_artifacts_size: T.Integer(),
      pipeline_artifacts_size: T.Integer(),
      packages_size: T.Integer(),
      snippets_size: T.Integer(),
      uploads_size: T.Integer(),
    }),
  ),
  /** Only for forks whose source the caller may see. */
  forked_from_project: T.Optional(ProjectSimple),
  /** `with_custom_attributes=true` (admins). */
  custom_attributes: CustomAttributesField,
};

export const ProjectFull = T.Object({ ...SIMPLE_FIELDS, ...FULL_FIELDS, ...CONDITIONAL_FIELDS });

/** Either form: routes that answer anonymous callers (simple) and signed-in ones (full). */
export const ProjectAny = T.Object({ ...SIMPLE_FIELDS, ...T.Partial(T.Object(FULL_FIELDS)).properties, ...CONDITIONAL_FIELDS });

// ---- parameters ----

/** Settings accepted on create and update (the reference's optional_project_params). */
export const PROJECT_SETTINGS_PARAMS = {
  description: T.Optional(T.String()),
  default_branch: T.Optional(T.String()),
  visibility: T.Optional(OneOf(VISIBILITIES)),
  topics: T.Optional(CommaList(T.String())),
  tag_list: T.Optional(CommaList(T.String())),
  issues_enabled: T.Optional(T.Boolean()),
  merge_requests_enabled: T.Optional(T.Boolean()),
  jobs_enabled: T.Optional(T.Boolean()),
  wiki_enabled: T.Optional(T.Boolean()),
  snippets_enabled: T.Optional(T.Boolean()),
  container_registry_enabled: T.Optional(T.Boolean()),
  container_registry_access_level: T.Optional(OneOf(FEATURE_LEVELS)),
  security_and_compliance_access_level: T.Optional(OneOf(FEATURE_LEVELS)),
  resolve_outdated_diff_discussions: T.Optional(T.Boolean()),
  shared_runners_enabled: T.Optional(T.Boolean()),
  ci_default_git_depth: T.Optional(T.Integer()),
  ci_forward_deployment_enabled: T.Optional(T.Boolean()),
  ci_separated_caches: T.Optional(T.Boolean()),
  ci_config_path: T.Optional(T.String()),
  public_jobs: T.Optional(T.Boolean()),
  public_builds: T.Optional(T.Boolean()),
  only_allow_merge_if_pipeline_succeeds: T.Optional(T.Boolean()),
  allow_merge_on_skipped_pipeline: T.Optional(T.Boolean()),
  restrict_user_defined_variables: T.Optional(T.Boolean()),
  only_allow_merge_if_all_discussions_are_resolved: T.Optional(T.Boolean()),
  remove_source_branch_after_merge: T.Optional(T.Boolean()),
  request_access_enabled: T.Optional(T.Boolean()),
  merge_method: T.Optional(OneOf(['merge', 'rebase_merge', 'ff'] as const)),
  squash_option: T.Optional(OneOf(['never', 'always', 'default_on', 'default_off'] as const)),
  autoclose_referenced_issues: T.Optional(T.Boolean()),
  suggestion_commit_message: T.Optional(T.String()),
  merge_commit_template: T.Optional(T.String()),
  squash_commit_template: T.Optional(T.String()),
};

export const CreateProjectParams = T.Object({
  name: T.Optional(T.String()),
  path: T.Optional(T.String()),
  namespace_id: T.Optional(T.Integer()),
  initialize_with_readme: T.Optional(T.Boolean()),
  ...PROJECT_SETTINGS_PARAMS,
});

export const UpdateProjectParams = T.Object({
  id: T.String(),
  name: T.Optional(T.String()),
  path: T.Optional(T.String()),
  ...PROJECT_SETTINGS_PARAMS,
  /** A multipart image file (see domain/projects/avatar.ts). */
  avatar: T.Optional(T.Any()),
});

/** The names of which PUT /projects/:id needs at least one. */
export const UPDATE_FIELDS = Object.keys(UpdateProjectParams.properties).filter((k) => k !== 'id');

export const ORDER_BY = [
  'id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'similarity',
  'repository_size', 'storage_size', 'packages_size', 'wiki_size',
] as const;
/** GET /users/:user_id/projects orders by neither similarity nor a size (the spec). */
const USER_ORDER_BY = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'] as const;

/** Filters of the project lists (the reference's collection_params, filter_params, statistics_params). */
/** Project lists offer keyset pages when ordered by id only, as in the reference. */
export const keysetById = (input: PageInput): boolean => input.order_by === 'id';

export const LIST_PARAMS = {
  archived: T.Optional(T.Boolean()),
  visibility: T.Optional(OneOf(VISIBILITIES)),
  search: T.Optional(T.String()),
  search_namespaces: T.Optional(T.Boolean()),
  owned: T.Optional(T.Boolean()),
  starred: T.Optional(T.Boolean()),
  imported: T.Optional(T.Boolean()),
  membership: T.Optional(T.Boolean()),
  min_access_level: T.Optional(T.Integer({ enum: [10, 20, 30, 40, 50] })),
  topic: T.Optional(CommaList(T.String())),
  topic_id: T.Optional(T.Integer()),
  last_activity_after: T.Optional(T.String()),
  last_activity_before: T.Optional(T.String()),
  with_issues_enabled: T.Optional(T.Boolean()),
  with_merge_requests_enabled: T.Optional(T.Boolean()),
  with_programming_language: T.Optional(T.String()),
  with_custom_attributes: T.Optional(T.Boolean()),
  custom_attributes: CustomAttributesFilterParam,
  simple: T.Optional(T.Boolean()),
  statistics: T.Optional(T.Boolean()),
  order_by: T.Optional(OneOf(ORDER_BY, { default: 'created_at' })),
  sort: T.Optional(OneOf(['asc', 'desc'] as const, { default: 'desc' })),
};

/** GET /projects alone: the [adv] checksum filters (default false). */
export const ALL_PROJECTS_PARAMS = {
  ...LIST_PARAMS,
  repository_checksum_failed: T.Optional(T.Boolean({ default: false })),
  wiki_checksum_failed: T.Optional(T.Boolean({ default: false })),
};

/** GET /users/:user_id/projects: the list filters with fewer orderings. */
export const USER_PROJECTS_PARAMS = {
  user_id: T.String(),
  ...LIST_PARAMS,
  order_by: T.Optional(OneOf(USER_ORDER_BY, { default: 'created_at' })),
};
