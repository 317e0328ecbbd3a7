// Row types of every table. Booleans are stored as 0/1 integers and timestamps as
// ISO 8601 UTC text on both dialects, so rows read the same from SQLite and PostgreSQL.
import type { ColumnType, Generated } from 'kysely';

/** A column with a database default: optional on insert. */
export type Default<T> = ColumnType<T, T | undefined, T>;

export type Bool = number; // 0 | 1

export interface UsersTable {
  id: Generated<number>;
  username: string;
  username_lower: string;
  name: string;
  email: string;
  email_lower: string;
  password_digest: string | null;
  state: Default<string>; // active | blocked | deactivated | ldap_blocked
  admin: Default<Bool>;
  external: Default<Bool>;
  bot: Default<Bool>;
  bot_kind: string | null; // project_bot | group_bot
  bio: Default<string>;
  location: Default<string>;
  public_email: Default<string>;
  skype: Default<string>;
  linkedin: Default<string>;
  twitter: Default<string>;
  website_url: Default<string>;
  organization: Default<string>;
  job_title: Default<string>;
  pronouns: string | null;
  note: string | null;
  projects_limit: Default<number>;
  can_create_group: Default<Bool>;
  private_profile: Default<Bool>;
  theme_id: Default<number>;
  color_scheme_id: Default<number>;
  commit_email: string | null;
  avatar_path: string | null;
  namespace_id: number | null;
  created_by_id: number | null;
  created_at: string;
  updated_at: string;
  confirmed_at: string | null;
  last_sign_in_at: string | null;
  current_sign_in_at: string | null;
  last_activity_on: string | null;
}

export interface NamespacesTable {
  id: Generated<number>;
  kind: string; // user | group
  name: string;
  path: string;
  full_path: string;
  full_path_lower: string;
  parent_id: number | null;
  owner_id: number | null; // user namespaces
  visibility_level: Default<number>; // 0 private, 10 internal, 20 public
  description: Default<string>;
  avatar_path: string | null;
  request_access_enabled: Default<Bool>;
  project_creation_level: Default<string>;
  subgroup_creation_level: Default<string>;
  share_with_group_lock: Default<Bool>;
  require_two_factor_authentication: Default<Bool>;
  two_factor_grace_period: Default<number>;
  lfs_enabled: Default<Bool>;
  emails_disabled: Default<Bool>;
  mentions_disabled: Default<Bool>;
  auto_devops_enabled: Bool | null;
  default_branch_protection: number | null;
  created_at: string;
  updated_at: string;
  runners_token: string | null; // groups (002); encrypted (110)
  runners_token_digest: string | null; // 110
  prevent_sharing_groups_outside_hierarchy: Default<Bool>; // 002
}

export interface MembersTable {
  id: Generated<number>;
  source_type: string; // Namespace | Project
  source_id: number;
  user_id: number;
  access_level: number;
  expires_at: string | null; // YYYY-MM-DD
  created_by_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface PersonalAccessTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_digest: string;
  scopes: string; // JSON array
  impersonation: Default<Bool>;
  revoked: Default<Bool>;
  expires_at: string | null; // YYYY-MM-DD
  last_used_at: string | null;
  created_at: string;
}

export interface OauthAccessTokensTable {
  id: Generated<number>;
  user_id: number;
  token_digest: string;
  refresh_digest: string | null;
  scopes: string; // space separated, as OAuth writes them
  expires_in: number; // seconds
  created_at: string;
  revoked_at: string | null;
}

export interface SessionsTable {
  id: Generated<number>;
  user_id: number;
  session_digest: string;
  expires_at: string;
  created_at: string;
  admin_mode_until: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface BackgroundJobsTable {
  id: Generated<number>;
  kind: string;
  payload: string; // JSON, ids only
  state: Default<string>; // queued | running | done | dead
  attempts: Default<number>;
  max_attempts: Default<number>;
  run_at: string;
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface ApplicationSettingsTable {
  id: number; // always 1
  data: string; // JSON object of the settings set so far; secrets encrypted
  version: number;
  created_at: string;
  updated_at: string;
}

export interface ProjectsTable {
  id: Generated<number>;
  name: string;
  path: string;
  full_path: string;
  full_path_lower: string;
  namespace_id: number;
  creator_id: number | null;
  description: string | null;
  visibility_level: Default<number>; // 0 private, 10 internal, 20 public
  default_branch: string | null;
  initialize_with_readme: Default<Bool>;
  issues_access_level: Default<string>; // enabled | private | disabled
  merge_requests_access_level: Default<string>;
  builds_access_level: Default<string>;
  wiki_access_level: Default<string>;
  snippets_access_level: Default<string>;
  container_registry_access_level: Default<string>;
  security_and_compliance_access_level: Default<string>;
  resolve_outdated_diff_discussions: Default<Bool>;
  shared_runners_enabled: Default<Bool>;
  ci_default_git_depth: Default<number>;
  ci_forward_deployment_enabled: Default<Bool>;
  ci_separated_caches: Default<Bool>;
  ci_config_path: string | null;
  public_jobs: Default<Bool>;
  only_allow_merge_if_pipeline_succeeds: Default<Bool>;
  allow_merge_on_skipped_pipeline: Default<Bool>;
  restrict_user_defined_variables: Default<Bool>;
  only_allow_merge_if_all_discussions_are_resolved: Default<Bool>;
  remove_source_branch_after_merge: Default<Bool>;
  request_access_enabled: Default<Bool>;
  merge_method: Default<string>; // merge | rebase_merge | ff
  squash_option: Default<string>; // never | always | default_on | default_off
  autoclose_referenced_issues: Default<Bool>;
  suggestion_commit_message: string | null;
  merge_commit_template: string | null;
  squash_commit_template: string | null;
  runners_token: string | null; // encrypted (110)
  runners_token_digest: string | null; // 110
  archived: Default<Bool>;
  star_count: Default<number>;
  forks_count: Default<number>;
  forked_from_id: number | null;
  avatar_path: string | null;
  marked_for_deletion_on: string | null; // YYYY-MM-DD
  /** Who asked for the delayed deletion (the author of the real removal). */
  deleting_user_id: number | null;
  import_type: string | null;
  import_url: string | null;
  import_status: Default<string>; // none | scheduled | started | finished | failed
  import_error: string | null;
  last_activity_at: string;
  created_at: string;
  updated_at: string;
}

export interface ProjectTopicsTable {
  id: Generated<number>;
  project_id: number;
  /** The topic's name, kept here so a project's topics read without a join. */
  name: string;
  name_lower: string;
  topic_id: number | null;
}

export interface TopicsTable {
  id: Generated<number>;
  name: string;
  name_lower: string;
  title: string;
  description: string | null;
  avatar_path: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectRedirectsTable {
  id: Generated<number>;
  old_full_path_lower: string;
  project_id: number;
  created_at: string;
}

export interface ProjectGroupLinksTable {
  id: Generated<number>;
  project_id: number;
  group_id: number;
  group_access: number;
  expires_at: string | null; // YYYY-MM-DD
  created_at: string;
  updated_at: string;
}

export interface ProjectHooksTable {
  id: Generated<number>;
  project_id: number;
  url: string;
  token_encrypted: string | null;
  push_events: Default<Bool>;
  push_events_branch_filter: string | null;
  tag_push_events: Default<Bool>;
  merge_requests_events: Default<Bool>;
  repository_update_events: Default<Bool>;
  issues_events: Default<Bool>;
  confidential_issues_events: Default<Bool>;
  note_events: Default<Bool>;
  confidential_note_events: Default<Bool>;
  pipeline_events: Default<Bool>;
  wiki_page_events: Default<Bool>;
  deployment_events: Default<Bool>;
  job_events: Default<Bool>;
  releases_events: Default<Bool>;
  enable_ssl_verification: Default<Bool>;
  recent_failures: Default<number>;
  backoff_count: Default<number>;
  disabled_until: string | null;
  created_at: string;
  updated_at: string;
}

export interface SystemHooksTable {
  id: Generated<number>;
  url: string;
  token_encrypted: string | null;
  push_events: Default<Bool>;
  tag_push_events: Default<Bool>;
  merge_requests_events: Default<Bool>;
  repository_update_events: Default<Bool>;
  enable_ssl_verification: Default<Bool>;
  created_at: string;
  updated_at: string;
}

export type HookType = 'system' | 'project';

export interface HookDeliveriesTable {
  id: Generated<number>;
  hook_type: HookType;
  hook_id: number;
  trigger: string;
  event_uuid: string;
  request_headers: string;
  request_data: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: Default<number>;
  created_at: string;
  updated_at: string;
}

export interface HookLogsTable {
  id: Generated<number>;
  hook_type: HookType;
  hook_id: number;
  delivery_id: number | null;
  url: string;
  trigger: string;
  request_headers: string;
  request_data: string;
  response_status: string;
  response_headers: string;
  response_body: string;
  execution_duration: number;
  created_at: string;
}

export interface ProjectAliasesTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  name_lower: string;
  created_at: string;
  updated_at: string;
}

export interface ProjectStarsTable {
  id: Generated<number>;
  user_id: number;
  project_id: number;
  created_at: string;
}

/** Application rate-limit counters: hits of one key in one fixed window (migration 010). */
export interface RateLimitsTable {
  key: string;
  window_start: string;
  count: number;
}

/** Custom attributes of users, groups and projects (admin-only key/value pairs). */
export interface CustomAttributesTable {
  id: Generated<number>;
  kind: string; // user | group | project
  subject_id: number;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
}

/** Activity events: what a user did, in which project (null when that project is gone). */
export interface EventsTable {
  id: Generated<number>;
  project_id: number | null;
  author_id: number;
  action: string; // created | updated | closed | reopened | pushed | commented | merged | joined | left | destroyed | expired | approved
  target_type: string | null;
  target_id: number | null;
  target_iid: number | null;
  target_title: string | null;
  created_at: string;
}

/** What a push event pushed (the spec's `push_data`). */
export interface PushEventPayloadsTable {
  event_id: number;
  commit_count: number;
  action: string; // created | removed | pushed
  ref_type: string; // branch | tag
  commit_from: string | null;
  commit_to: string | null;
  ref: string | null;
  commit_title: string | null;
}

/** Cached repository figures of a project (019). */
export interface ProjectRepositoryStatisticsTable {
  project_id: number;
  commit_count: number;
  repository_size: number | string; // bigint: PostgreSQL answers a string
  languages: string; // JSON [[name, share], …], largest first
  refreshed_at: string;
}

/** Protected branches: a branch name or wildcard per project (migration 012). */
export interface ProtectedBranchesTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  allow_force_push: Default<number>;
  code_owner_approval_required: Default<number>;
  created_at: string;
  updated_at: string;
}

/** Who may push / merge / unprotect a protected branch: a role, a user or a group (migration 012). */
export interface ProtectedBranchAccessLevelsTable {
  id: Generated<number>;
  protected_branch_id: number;
  kind: 'push' | 'merge' | 'unprotect';
  access_level: number | null;
  user_id: number | null;
  group_id: number | null;
}

/** Protected tags: a tag name or wildcard (migration 080). */
export interface ProtectedTagsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  created_at: string;
  updated_at: string;
}

/** Who may create a protected tag: a role, a user or a group (migration 080). */
export interface ProtectedTagCreateAccessLevelsTable {
  id: Generated<number>;
  protected_tag_id: number;
  access_level: number | null;
  user_id: number | null;
  group_id: number | null;
}

/** Releases: one per tag of a project (migration 170). */
export interface ReleasesTable {
  id: Generated<number>;
  project_id: number;
  tag: string;
  name: string | null;
  description: string | null;
  /** The tag's commit when the release was made. */
  sha: string | null;
  author_id: number | null;
  created_at: string;
  updated_at: string;
  released_at: string;
}

/** A release's asset links (migration 170). */
export interface ReleaseLinksTable {
  id: Generated<number>;
  release_id: number;
  name: string;
  url: string;
  /** The permanent path under `/-/releases/:tag/downloads` (`/bin/app`), or null. */
  filepath: string | null;
  link_type: Default<string>; // other | runbook | image | package
  created_at: string;
  updated_at: string;
}

/** CI pipelines (migration 011). */
export interface CiPipelinesTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  status: string;
  source: string;
  ref: string;
  sha: string;
  before_sha: string;
  tag: Default<Bool>;
  yaml_errors: string | null;
  user_id: number | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  committed_at: string | null;
  duration: number | null;
  queued_duration: number | null;
  coverage: string | null;
  parent_pipeline_id: number | null;
  parent_job_id: number | null;
  /** `workflow:name`, not in the 15.1 API. */
  name: string | null;
  commit_message: string | null;
  commit_author_name: string | null;
  commit_author_email: string | null;
  commit_created_at: string | null;
  /** The schedule that made the pipeline (migration 081). */
  pipeline_schedule_id: Default<number | null>;
}

/** Pipeline schedules (migration 081). */
export interface CiPipelineSchedulesTable {
  id: Generated<number>;
  project_id: number;
  owner_id: number | null;
  description: string;
  ref: string;
  cron: string;
  cron_timezone: string;
  next_run_at: string | null;
  active: Default<number>;
  created_at: string;
  updated_at: string;
}

export interface CiPipelineScheduleVariablesTable {
  id: Generated<number>;
  pipeline_schedule_id: number;
  key: string;
  encrypted_value: string;
  variable_type: string; // env_var | file
  created_at: string;
  updated_at: string;
}

export interface CiPipelineVariablesTable {
  id: Generated<number>;
  pipeline_id: number;
  key: string;
  encrypted_value: string;
  variable_type: string; // env_var | file
}

/** CI jobs: builds and bridges (type). */
export interface CiJobsTable {
  id: Generated<number>;
  project_id: number;
  pipeline_id: number;
  type: string; // build | bridge | generic (an external commit status)
  name: string;
  stage: string;
  stage_idx: number;
  status: string;
  failure_reason: string | null;
  ref: string;
  tag: Default<Bool>;
  allow_failure: Default<Bool>;
  when: string;
  coverage: number | null;
  created_at: string;
  updated_at: string;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  scheduled_at: string | null;
  duration: number | null;
  queued_duration: number | null;
  artifacts_expire_at: string | null;
  tag_list: Default<string>; // JSON array
  user_id: number | null;
  retried: Default<Bool>;
  retry_count: Default<number>;
  options: string; // JSON PlannedJob
  runner_id: number | null;
  exit_code: number | null;
  token_digest: string | null;
  erased_at: string | null;
  erased_by_id: number | null;
  downstream_pipeline_id: number | null;
  /** The runner node (and its boot) running the job; null for jobs taken before nodes had leases. */
  runner_node_id: string | null;
  runner_boot_id: string | null;
  /** Bytes of a registered runner's trace received so far (085). */
  trace_bytes: Default<number>;
}

/** An external commit status's own fields; its job is a ci_jobs row of type `generic` (migration 171). */
export interface CiCommitStatusesTable {
  job_id: number;
  target_url: string | null;
  description: string | null;
}

export interface CiRunnerNodesTable {
  node_id: string;
  boot_id: string;
  started_at: string;
  lease_expires_at: string;
}

// Runners (085).
export interface CiRunnersTable {
  id: Generated<number>;
  runner_type: string; // instance_type | group_type | project_type
  group_id: number | null;
  token_digest: string | null;
  token_expires_at: string | null;
  description: Default<string>;
  paused: Default<number>;
  locked: Default<number>;
  run_untagged: Default<number>;
  tag_list: Default<string>; // JSON array
  access_level: Default<string>; // not_protected | ref_protected
  maximum_timeout: number | null;
  maintenance_note: string | null;
  registration_type: string; // registration_token | authenticated_user | built_in
  creator_id: number | null;
  created_at: string;
  updated_at: string;
  contacted_at: string | null;
  name: string | null;
  version: string | null;
  revision: string | null;
  platform: string | null;
  architecture: string | null;
  ip_address: string | null;
}

export interface CiRunnerProjectsTable {
  id: Generated<number>;
  runner_id: number;
  project_id: number;
  created_at: string;
}

export interface CiRunnerManagersTable {
  id: Generated<number>;
  runner_id: number;
  system_id: string;
  created_at: string;
  contacted_at: string | null;
  version: string | null;
  revision: string | null;
  platform: string | null;
  architecture: string | null;
  ip_address: string | null;
}

export interface CiJobVariablesTable {
  id: Generated<number>;
  job_id: number;
  key: string;
  encrypted_value: string;
  variable_type: string;
}

export interface CiJobArtifactsTable {
  id: Generated<number>;
  job_id: number;
  project_id: number;
  file_type: string;
  file_format: string;
  filename: string;
  size: number;
  blob_key: string;
  expire_at: string | null;
  created_at: string;
}

export interface CiTraceChunksTable {
  job_id: number;
  seq: number;
  data: string; // base64
}

/** When each piece of a job's log was stored: its start in the trace (bytes) and the time (migration 117). */
/** SSH keys: users' and deploy keys (migration 190). */
export interface KeysTable {
  id: Generated<number>;
  user_id: number | null;
  type: 'Key' | 'DeployKey';
  title: string;
  key: string;
  fingerprint: string;
  fingerprint_sha256: string;
  usage_type: string;
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The projects a deploy key is enabled for (migration 190). */
export interface DeployKeysProjectsTable {
  id: Generated<number>;
  deploy_key_id: number;
  project_id: number;
  can_push: number;
  created_at: string;
  updated_at: string;
}

export interface CiTraceTimesTable {
  job_id: number;
  byte_offset: number;
  created_at: string;
}

/** Badges of a project or a group (migration 050). */
export interface BadgesTable {
  id: Generated<number>;
  project_id: number | null;
  group_id: number | null;
  name: string | null;
  link_url: string;
  image_url: string;
  created_at: string;
  updated_at: string;
}

/** Alert integrations: HTTP endpoints that receive alerts (migration 051). */
export interface AlertIntegrationsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  active: Default<Bool>;
  endpoint_identifier: string;
  token_digest: string;
  created_at: string;
  updated_at: string;
}

/** Alerts of a project (migration 051). */
export interface AlertsTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  integration_id: number | null;
  title: string;
  description: string | null;
  service: string | null;
  monitoring_tool: string | null;
  environment_name: string | null;
  hosts: string; // JSON array
  severity: string;
  status: string;
  fingerprint: string;
  events: Default<number>;
  payload: string; // JSON
  started_at: string;
  ended_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Scanners, identifiers and findings of the default branch's security reports (migration 052). */
export interface VulnerabilityScannersTable {
  id: Generated<number>;
  project_id: number;
  external_id: string;
  name: string;
  vendor: string | null;
}

export interface VulnerabilityIdentifiersTable {
  id: Generated<number>;
  project_id: number;
  fingerprint: string;
  external_type: string | null;
  external_id: string | null;
  name: string | null;
  url: string | null;
}

export interface VulnerabilityFindingsTable {
  id: Generated<number>;
  project_id: number;
  uuid: string;
  report_type: string;
  name: string;
  severity: string;
  confidence: string;
  scanner_id: number;
  primary_identifier_id: number;
  identifier_ids: string; // JSON array
  vulnerability_id: number | null;
  location_fingerprint: string;
  project_fingerprint: string;
  metadata_version: string;
  raw_metadata: string;
  latest_pipeline_id: number;
  created_at: string;
  updated_at: string;
}

/** Vulnerabilities made from findings (migration 052). */
export interface VulnerabilitiesTable {
  id: Generated<number>;
  project_id: number;
  finding_id: number;
  author_id: number;
  title: string;
  description: string | null;
  state: string; // detected | confirmed | resolved | dismissed
  severity: string;
  confidence: string;
  report_type: string;
  resolved_on_default_branch: Default<Bool>;
  dismissed_at: string | null;
  dismissed_by_id: number | null;
  resolved_at: string | null;
  resolved_by_id: number | null;
  confirmed_at: string | null;
  confirmed_by_id: number | null;
  updated_by_id: number | null;
  last_edited_at: string | null;
  last_edited_by_id: number | null;
  start_date: string | null;
  due_date: string | null;
  created_at: string;
  updated_at: string;
}

export interface VulnerabilityIngestionsTable {
  project_id: number;
  pipeline_id: number;
  ingested_at: string;
}

export interface ProjectExportsTable {
  id: Generated<number>;
  project_id: number;
  user_id: number | null;
  run: Default<number>;
  status: string; // queued | started | uploading (archive done, upload[url] pending) | finished | failed
  description: string | null;
  with_members: Default<number>;
  upload_url_encrypted: string | null;
  upload_method: string | null;
  archive_key: string | null;
  archive_filename: string | null;
  archive_size: number | string | null; // bigint: PostgreSQL answers a string
  finished_at: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectImportsTable {
  id: Generated<number>;
  project_id: number;
  user_id: number;
  correlation_id: string;
  archive_key: string | null;
  /** remote and object-store imports: the archive's URL until the job has downloaded it (encrypted) */
  source_url_encrypted: string | null;
  override_params: string; // JSON object
  replaces_project_id: number | null;
  original_path: string | null;
  original_name: string | null;
  /** The run that holds the import now (each run of the job claims it) */
  run_token: string | null;
  /** Set in the transaction that marks the import finished or failed: no run claims it after that */
  ended_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface RefChangeIntentsTable {
  id: Generated<number>;
  project_id: number;
  user_id: number;
  /** JSON: [{ref, before, after, commitCount?, commitTitle?}]; once published, the changes that happened */
  changes: string;
  state: string; // pending | published | discarded
  /** The queued job that publishes the changes if the process that moved the refs did not */
  job_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface ImportFailuresTable {
  id: Generated<number>;
  project_id: number;
  correlation_id: string;
  relation_key: string | null;
  relation_index: number | null;
  exception_class: string;
  exception_message: string | null;
  source: string;
  retry_count: Default<number>;
  created_at: string;
}

/** CI/CD variables of projects, groups and the instance (migration 075). */
export interface CiVariablesTable {
  id: Generated<number>;
  owner_type: string; // project | group | instance
  owner_id: number; // the project's or group's id; 0 for the instance
  project_id: number | null;
  group_id: number | null;
  key: string;
  encrypted_value: string;
  variable_type: string; // env_var | file
  protected: number;
  masked: number;
  raw: number;
  environment_scope: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

/** Pipeline trigger tokens (migration 076). */
export interface CiTriggersTable {
  id: Generated<number>;
  project_id: number;
  owner_id: number | null;
  description: string | null;
  token_digest: string;
  encrypted_token: string;
  last_used: string | null;
  created_at: string;
  updated_at: string;
}

export interface MergeRequestsTable {
  id: Generated<number>;
  /** The target project (where the request lives and merges). */
  project_id: number;
  iid: number;
  source_project_id: number;
  source_branch: string;
  target_branch: string;
  title: string;
  description: string | null;
  state: Default<string>; // opened | closed | merged | locked
  author_id: number;
  milestone_id: number | null;
  merge_status: Default<string>; // unchecked | checking | can_be_merged | cannot_be_merged | cannot_be_merged_recheck
  merge_error: string | null;
  merge_commit_sha: string | null;
  squash_commit_sha: string | null;
  squash: Default<Bool>;
  force_remove_source_branch: Default<Bool>;
  should_remove_source_branch: Bool | null;
  discussion_locked: Bool | null;
  allow_collaboration: Default<Bool>;
  merge_when_pipeline_succeeds: Default<Bool>;
  /** JSON: what a merge waiting for its pipeline was asked ({sha, squash, messages, should_remove_source_branch}) */
  merge_params: string | null;
  merge_user_id: number | null;
  merged_by_id: number | null;
  merged_at: string | null;
  closed_by_id: number | null;
  closed_at: string | null;
  head_pipeline_id: number | null;
  latest_diff_id: number | null;
  time_estimate: Default<number>;
  total_time_spent: Default<number>;
  created_at: string;
  updated_at: string;
}

export interface MergeRequestUsersTable {
  id: Generated<number>;
  merge_request_id: number;
  user_id: number;
  created_at: string;
}

export interface MergeRequestReviewersTable extends MergeRequestUsersTable {
  state: Default<string>;
}

export interface MergeRequestDiffsTable {
  id: Generated<number>;
  merge_request_id: number;
  state: string; // collected | empty
  base_commit_sha: string | null;
  head_commit_sha: string;
  start_commit_sha: string | null;
  /** Files changed, as the reference shows it ('1000+' past the cap). */
  real_size: string | null;
  commits_count: Default<number>;
  created_at: string;
}

/** Labels of a project or of a group (migration 150). */
export interface LabelsTable {
  id: Generated<number>;
  project_id: number | null;
  group_id: number | null;
  title: string;
  color: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

/** A label's priority in one project (migration 150). */
export interface LabelPrioritiesTable {
  id: Generated<number>;
  project_id: number;
  label_id: number;
  priority: number;
}

/** A label on an issue or a merge request (migration 150). */
export interface LabelLinksTable {
  id: Generated<number>;
  label_id: number;
  target_type: string; // Issue | MergeRequest
  target_id: number;
  created_at: string;
}

/** Who follows a label, an issue or a merge request (migration 150). */
export interface SubscriptionsTable {
  id: Generated<number>;
  user_id: number;
  subscribable_type: string; // Label | Issue | MergeRequest
  subscribable_id: number;
  project_id: Default<number>; // 0: not for one project
  subscribed: Bool;
  created_at: string;
  updated_at: string;
}

/** Milestones of a project or of a group (migration 150). */
export interface MilestonesTable {
  id: Generated<number>;
  project_id: number | null;
  group_id: number | null;
  iid: number;
  title: string;
  description: string | null;
  state: Default<string>; // active | closed
  due_date: string | null;
  start_date: string | null;
  created_at: string;
  updated_at: string;
}

/** Issues (migration 151). */
export interface IssuesTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  title: string;
  description: string | null;
  author_id: number | null;
  state: Default<string>; // opened | closed
  issue_type: Default<string>; // issue | incident | test_case
  confidential: Default<Bool>;
  discussion_locked: Bool | null;
  due_date: string | null;
  milestone_id: number | null;
  weight: number | null;
  time_estimate: Default<number>;
  relative_position: number | null;
  closed_at: string | null;
  closed_by_id: number | null;
  moved_to_id: number | null;
  duplicated_to_id: number | null;
  updated_by_id: number | null;
  last_edited_at: string | null;
  last_edited_by_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface IssueAssigneesTable {
  issue_id: number;
  user_id: number;
}

export interface IssueLinksTable {
  id: Generated<number>;
  source_id: number;
  target_id: number;
  link_type: Default<string>; // relates_to | blocks
  created_at: string;
  updated_at: string;
}

/** Time spent on an issue or a merge request (migration 151). */
export interface TimelogsTable {
  id: Generated<number>;
  target_type: string; // Issue | MergeRequest
  target_id: number;
  user_id: number | null;
  time_spent: number;
  spent_at: string;
  summary: string | null;
  created_at: string;
}

export interface DB {
  merge_requests: MergeRequestsTable;
  merge_request_assignees: MergeRequestUsersTable;
  merge_request_reviewers: MergeRequestReviewersTable;
  merge_request_diffs: MergeRequestDiffsTable;
  project_exports: ProjectExportsTable;
  project_imports: ProjectImportsTable;
  ref_change_intents: RefChangeIntentsTable;
  import_failures: ImportFailuresTable;
  vulnerability_scanners: VulnerabilityScannersTable;
  vulnerability_identifiers: VulnerabilityIdentifiersTable;
  vulnerability_findings: VulnerabilityFindingsTable;
  vulnerabilities: VulnerabilitiesTable;
  vulnerability_ingestions: VulnerabilityIngestionsTable;
  alert_integrations: AlertIntegrationsTable;
  alerts: AlertsTable;
  badges: BadgesTable;
  labels: LabelsTable;
  label_priorities: LabelPrioritiesTable;
  label_links: LabelLinksTable;
  subscriptions: SubscriptionsTable;
  milestones: MilestonesTable;
  issues: IssuesTable;
  issue_assignees: IssueAssigneesTable;
  issue_links: IssueLinksTable;
  timelogs: TimelogsTable;
  ci_pipelines: CiPipelinesTable;
  ci_pipeline_variables: CiPipelineVariablesTable;
  ci_pipeline_schedules: CiPipelineSchedulesTable;
  ci_pipeline_schedule_variables: CiPipelineScheduleVariablesTable;
  ci_jobs: CiJobsTable;
  ci_commit_statuses: CiCommitStatusesTable;
  ci_job_variables: CiJobVariablesTable;
  ci_job_artifacts: CiJobArtifactsTable;
  ci_trace_chunks: CiTraceChunksTable;
  ci_trace_times: CiTraceTimesTable;
  keys: KeysTable;
  deploy_keys_projects: DeployKeysProjectsTable;
  ci_runner_nodes: CiRunnerNodesTable;
  ci_variables: CiVariablesTable;
  ci_triggers: CiTriggersTable;
  ci_runners: CiRunnersTable;
  ci_runner_projects: CiRunnerProjectsTable;
  ci_runner_managers: CiRunnerManagersTable;
  protected_branches: ProtectedBranchesTable;
  protected_branch_access_levels: ProtectedBranchAccessLevelsTable;
  protected_tags: ProtectedTagsTable;
  releases: ReleasesTable;
  release_links: ReleaseLinksTable;
  protected_tag_create_access_levels: ProtectedTagCreateAccessLevelsTable;
  project_repository_statistics: ProjectRepositoryStatisticsTable;
  custom_attributes: CustomAttributesTable;
  events: EventsTable;
  push_event_payloads: PushEventPayloadsTable;
  users: UsersTable;
  namespaces: NamespacesTable;
  members: MembersTable;
  personal_access_tokens: PersonalAccessTokensTable;
  oauth_access_tokens: OauthAccessTokensTable;
  sessions: SessionsTable;
  background_jobs: BackgroundJobsTable;
  application_settings: ApplicationSettingsTable;
  projects: ProjectsTable;
  project_topics: ProjectTopicsTable;
  topics: TopicsTable;
  project_redirects: ProjectRedirectsTable;
  project_stars: ProjectStarsTable;
  project_group_links: ProjectGroupLinksTable;
  project_hooks: ProjectHooksTable;
  system_hooks: SystemHooksTable;
  hook_deliveries: HookDeliveriesTable;
  hook_logs: HookLogsTable;
  project_aliases: ProjectAliasesTable;
  rate_limits: RateLimitsTable;
}
