// The one table of instance application settings (spec "Application settings"; reference:
// lib/api/settings.rb, lib/api/entities/application_setting.rb, app/models/application_setting*.rb).
// Everything else is derived from it: the PUT parameter schema, defaults, validation, the
// response object and which values are stored encrypted.

/**
 * Value kinds. `string` settings may always be null; `integer?` and `strings?` are the nullable
 * variants of `integer` and `strings`. `decimal` is the reference's numeric column (a BigDecimal,
 * sent as a string: "1.0"); `float` its float column (sent as a number).
 */
export type SettingType = 'boolean' | 'integer' | 'integer?' | 'decimal' | 'float' | 'string' | 'strings' | 'strings?' | 'integers' | 'object';

/** A bound: a number, or the name of another setting whose current value is the bound. */
export type Bound = number | string;

export interface DefaultsContext {
  /** Host of the instance's external URL (`anvil.example.com`). */
  host: string;
}

export interface SettingDef {
  type: SettingType;
  default: unknown | ((ctx: DefaultsContext) => unknown);
  /**
   * Allowed values checked with the parameters (the reference's Grape `values:`): a wrong value
   * is a 400 `{"error":"x does not have a valid value"}`. For arrays: allowed items.
   */
  values?: readonly (string | number)[];
  /** Allowed values checked as a model validation: 400 `{"message":{"x":["is not included in the list"]}}`. */
  inclusion?: readonly number[];
  /** Numeric range, checked as a model validation with Rails' numericality messages. */
  gte?: Bound;
  gt?: Bound;
  lte?: Bound;
  lt?: Bound;
  /** String format checked as a model validation (blank allowed). */
  format?: 'url' | 'email' | 'duration' | 'ip_list' | 'token_prefix';
  maxLength?: number;
  /** Stored encrypted. `hidden`: never in a response (as the reference's entity); `masked`: a fixed mask when set. */
  secret?: 'hidden' | 'masked';
  /** Deprecated name: reading mirrors, writing sets the named setting instead (the reference's legacy names). */
  aliasOf?: string;
  /** Writing this setting also writes these (a legacy field kept in step with its replacement). */
  alsoSets?: readonly string[];
  /** Always this value; a PUT is accepted and ignored. */
  fixed?: unknown;
  /** Not stored: derived from other settings (see service). */
  computed?: true;
  /**
   * For a boolean: turning it on needs these settings. `request` (the reference's Grape `given`):
   * they must come in the same request, else 400 `{"error":"x is missing"}`; `stored` (model
   * validation): they must be non-blank after the update, else `{"message":{"x":["can't be blank"]}}`.
   * `request` implies `stored` too.
   */
  requires?: readonly string[];
  requiresIn?: 'request' | 'stored';
}

const VISIBILITY = ['private', 'internal', 'public'] as const;
const keyRestriction = (...sizes: number[]) => ({ type: 'integer', default: 0, values: [0, ...sizes, -1] }) as const;
type Extra = Omit<Partial<SettingDef>, 'type'>;
const str = (extra: Extra = {}) => ({ default: null, ...extra, type: 'string' }) as const;
const flag = (dflt: boolean, extra: Extra = {}) => ({ ...extra, default: dflt, type: 'boolean' }) as const;
const int = (dflt: number, extra: Extra = {}) => ({ ...extra, default: dflt, type: 'integer' }) as const;

/** Storage names Anvil knows (one local storage). */
export const REPOSITORY_STORAGES = ['default'] as const;

/** Import origin kinds (the reference's `import_sources` values, which clients send as they are). */
export const IMPORT_SOURCES = ['github', 'bitbucket', 'bitbucket_server', 'gitlab', 'fogbugz', 'git', 'gitlab_project', 'gitea', 'manifest', 'phabricator'] as const;

export const SETTINGS = {
  // ---- booleans
  admin_mode: flag(false),
  spamfilter_enabled: flag(false, { requires: ['spamfilter_api_key'], requiresIn: 'request' }),
  allow_group_owners_to_manage_ldap: flag(true),
  allow_local_requests_from_hooks_and_services: flag(false, { aliasOf: 'allow_local_requests_from_web_hooks_and_services' }),
  allow_local_requests_from_web_hooks_and_services: flag(false),
  allow_local_requests_from_system_hooks: flag(true),
  asset_proxy_enabled: flag(false, { requires: ['asset_proxy_url', 'asset_proxy_secret_key'], requiresIn: 'stored' }),
  authorized_keys_enabled: flag(true),
  auto_devops_enabled: flag(true),
  automatic_purchased_storage_allocation: flag(false),
  check_namespace_plan: flag(false),
  container_expiration_policies_enable_historic_entries: flag(false),
  container_registry_expiration_policies_caching: flag(true),
  deactivate_dormant_users: flag(false),
  delayed_project_deletion: flag(false),
  delayed_group_deletion: flag(true),
  delete_inactive_projects: flag(false),
  disable_feed_token: flag(false),
  dns_rebinding_protection_enabled: flag(true),
  domain_denylist_enabled: flag(false, { requires: ['domain_denylist'], requiresIn: 'stored' }),
  managedcluster_integration_enabled: flag(false, {
    requires: ['managedcluster_account_id', 'managedcluster_access_key_id', 'managedcluster_secret_access_key'],
    requiresIn: 'request',
  }),
  searchengine_aws: flag(false),
  searchengine_indexing: flag(false),
  searchengine_limit_indexing: flag(false),
  searchengine_search: flag(false),
  email_author_in_body: flag(false),
  enforce_namespace_storage_limit: flag(false),
  enforce_terms: flag(false, { requires: ['terms'], requiresIn: 'stored' }),
  external_authorization_service_enabled: flag(false, {
    requires: ['external_authorization_service_default_label', 'external_authorization_service_timeout', 'external_authorization_service_url'],
    requiresIn: 'stored',
  }),
  dashboard_tool_enabled: flag(false),
  avatarservice_enabled: flag(true),
  hashed_storage_enabled: flag(true, { fixed: true }),
  help_page_hide_commercial_content: flag(false),
  hide_third_party_offers: flag(false),
  housekeeping_bitmaps_enabled: flag(true, { fixed: true }),
  housekeeping_enabled: flag(true, {
    requires: ['housekeeping_full_repack_period', 'housekeeping_gc_period', 'housekeeping_incremental_repack_period'],
    requiresIn: 'request',
  }),
  html_emails_enabled: flag(true),
  in_product_marketing_emails_enabled: flag(true),
  invisible_captcha_enabled: flag(false),
  keep_latest_artifact: flag(true),
  mailprovider_events_enabled: flag(false, { requires: ['mailprovider_signing_key'], requiresIn: 'request' }),
  maintenance_mode: flag(false),
  mirror_available: flag(true),
  npm_package_requests_forwarding: flag(true),
  pypi_package_requests_forwarding: flag(true),
  pages_domain_verification_enabled: flag(true),
  password_authentication_enabled_for_git: flag(true),
  password_authentication_enabled_for_web: flag(true),
  password_number_required: flag(false),
  password_symbol_required: flag(false),
  password_uppercase_required: flag(false),
  password_lowercase_required: flag(false),
  performance_bar_enabled: flag(false, { computed: true }),
  diagram_renderer_a_enabled: flag(false, { requires: ['diagram_renderer_a_url'], requiresIn: 'request' }),
  diagram_renderer_b_enabled: flag(false, { requires: ['diagram_renderer_b_url'], requiresIn: 'request' }),
  project_export_enabled: flag(true),
  metrics_endpoint_enabled: flag(true),
  protected_ci_variables: flag(true),
  recaptcha_enabled: flag(false),
  signup_enabled: flag(true),
  user_oauth_applications: flag(true),
  require_admin_approval_after_user_signup: flag(true),
  floc_enabled: flag(false),
  user_show_add_ssh_key_message: flag(true),

  // ---- integers
  default_branch_protection: int(2, { values: [0, 1, 2] }),
  default_project_creation: int(2, { values: [0, 1, 2] }),
  default_projects_limit: int(100000, { gte: 0, lte: 2147483647 }),
  container_registry_cleanup_tags_service_max_list_size: int(200, { gte: 0 }),
  container_registry_delete_tags_service_timeout: int(250, { gte: 0 }),
  container_registry_expiration_policies_worker_capacity: int(4, { gte: 0 }),
  container_registry_token_expire_delay: int(5, { gte: 1 }),
  deletion_adjourned_period: int(7, { gte: 1, lte: 90 }),
  diff_max_patch_bytes: int(204800, { gte: 204800, lte: 512000 }),
  diff_max_files: int(1000, { gte: 500, lte: 3000 }),
  diff_max_lines: int(50000, { gte: 50000, lte: 100000 }),
  dsa_key_restriction: keyRestriction(1024, 2048, 3072),
  ecdsa_key_restriction: keyRestriction(256, 384, 521),
  ecdsa_sk_key_restriction: keyRestriction(256),
  ed25519_key_restriction: keyRestriction(256),
  ed25519_sk_key_restriction: keyRestriction(256),
  rsa_key_restriction: keyRestriction(1024, 2048, 3072, 4096),
  external_pipeline_validation_service_timeout: { type: 'integer?', default: null, gt: 0 },
  file_template_project_id: { type: 'integer?', default: null },
  first_day_of_week: int(0, { inclusion: [0, 1, 6] }),
  geo_status_timeout: int(10, { gt: 0 }),
  git_two_factor_session_expiry: int(15, { gte: 1, lte: 10080 }),
  repostorage_timeout_default: int(55, { gte: 0 }),
  repostorage_timeout_fast: int(10, { gte: 0, lte: 'repostorage_timeout_default' }),
  repostorage_timeout_medium: int(30, { gte: 'repostorage_timeout_fast', lte: 'repostorage_timeout_default' }),
  housekeeping_full_repack_period: int(50, { gte: 'housekeeping_incremental_repack_period' }),
  housekeeping_gc_period: int(200, { gte: 'housekeeping_full_repack_period' }),
  housekeeping_incremental_repack_period: int(10, { gt: 0 }),
  inactive_projects_delete_after_months: int(2, { gt: 0 }),
  inactive_projects_min_size_mb: int(0, { gte: 0 }),
  inactive_projects_send_warning_email_after_months: int(1, { gt: 0, lt: 'inactive_projects_delete_after_months' }),
  issues_create_limit: int(0, { gte: 0 }),
  local_markdown_version: int(0, { gte: 0 }),
  max_artifacts_size: int(100, { gt: 0 }),
  max_attachment_size: int(10, { gt: 0 }),
  max_export_size: int(0, { gte: 0 }),
  max_import_size: int(0, { gte: 0 }),
  max_pages_size: int(100, { gte: 0, lt: 1048576 }),
  max_personal_access_token_lifetime: { type: 'integer?', default: null, gte: 1, lte: 365 },
  max_ssh_key_lifetime: { type: 'integer?', default: null, gte: 1, lte: 365 },
  metrics_method_call_threshold: int(10, { gte: 0 }),
  mirror_capacity_threshold: int(50, { gt: 0, lte: 'mirror_max_capacity' }),
  mirror_max_capacity: int(100, { gt: 0 }),
  mirror_max_delay: int(300, { gt: 0 }),
  pipeline_limit_per_project_user_sha: int(0, { gte: 0 }),
  // Requests per user and minute (the reference's import/export rate limits; 0 disables).
  project_export_limit: int(6, { gte: 0 }),
  project_download_export_limit: int(1, { gte: 0 }),
  project_import_limit: int(6, { gte: 0 }),
  group_export_limit: int(6, { gte: 0 }),
  group_download_export_limit: int(1, { gte: 0 }),
  group_import_limit: int(6, { gte: 0 }),
  push_event_activities_limit: int(3, { gte: 0 }),
  push_event_hooks_limit: int(3, { gte: 0 }),
  raw_blob_request_limit: int(300, { gte: 0 }),
  // Removed upstream in 15.0 but still answered: writing it also sets search_rate_limit.
  user_email_lookup_limit: int(60, { gte: 0, alsoSets: ['search_rate_limit'] }),
  search_rate_limit: int(30, { gte: 0 }),
  search_rate_limit_unauthenticated: int(10, { gte: 0 }),
  searchengine_indexed_field_length_limit: int(0, { gte: 0 }),
  searchengine_indexed_file_size_limit_kb: int(1024, { gt: 0 }),
  searchengine_max_bulk_concurrency: int(10, { gt: 0 }),
  searchengine_max_bulk_size_mb: int(10, { gt: 0 }),
  session_expire_delay: int(10080, { gte: 0 }),
  terminal_max_session_time: int(0, { gte: 0 }),
  snippet_size_limit: int(52428800, { gt: 0 }),
  wiki_page_max_content_bytes: int(52428800, { gte: 1024 }),
  performance_bar_allowed_group_id: { type: 'integer?', default: null },

  // ---- decimals
  external_authorization_service_timeout: { type: 'float', default: 0.5, gte: 0.001, lte: 10 },
  polling_interval_multiplier: { type: 'decimal', default: 1.0, gte: 0 },

  // ---- strings
  admin_notification_email: str({ aliasOf: 'abuse_notification_email' }),
  abuse_notification_email: str({ format: 'email' }),
  after_sign_out_path: str({ format: 'url' }),
  after_sign_up_text: str(),
  spamfilter_api_key: str({ secret: 'masked' }),
  archive_builds_in_human_readable: str({ format: 'duration' }),
  asset_proxy_url: str({ format: 'url' }),
  asset_proxy_secret_key: str({ secret: 'hidden' }),
  auto_devops_domain: str(),
  commit_email_hostname: str({ default: (ctx: DefaultsContext) => `users.noreply.${ctx.host}` }),
  default_artifacts_expire_in: str({ default: '30 days', format: 'duration' }),
  default_branch_name: str(),
  default_ci_config_path: str(),
  default_group_visibility: str({ default: 'private', values: VISIBILITY }),
  default_project_visibility: str({ default: 'private', values: VISIBILITY }),
  default_snippet_visibility: str({ default: 'private', values: VISIBILITY }),
  managedcluster_access_key_id: str(),
  managedcluster_account_id: str(),
  managedcluster_secret_access_key: str({ secret: 'hidden' }),
  searchengine_aws_access_key: str(),
  searchengine_aws_region: str({ default: 'us-east-1' }),
  searchengine_aws_secret_access_key: str({ secret: 'masked' }),
  searchengine_url: str({ default: 'http://localhost:9200' }),
  searchengine_username: str(),
  searchengine_password: str({ secret: 'masked' }),
  email_additional_text: str({ maxLength: 10000 }),
  // `nil` (or an empty value) means both protocols; stored as null.
  enabled_git_access_protocol: str({ values: ['ssh', 'http', 'nil'] }),
  external_auth_client_cert: str(),
  external_auth_client_key: str({ secret: 'masked' }),
  external_auth_client_key_pass: str({ secret: 'masked' }),
  external_authorization_service_default_label: str(),
  external_authorization_service_url: str({ format: 'url' }),
  external_pipeline_validation_service_url: str({ format: 'url' }),
  external_pipeline_validation_service_token: str({ secret: 'masked' }),
  geo_node_allowed_ips: str({ default: '0.0.0.0/0, ::/0', format: 'ip_list' }),
  dashboard_tool_url: str({ default: '/-/grafana' }),
  help_page_support_url: str({ format: 'url', maxLength: 255 }),
  help_page_text: str(),
  help_text: str(),
  home_page_url: str({ format: 'url' }),
  mailprovider_signing_key: str({ secret: 'masked' }),
  maintenance_mode_message: str(),
  performance_bar_allowed_group_path: str(),
  personal_access_token_prefix: str({ format: 'token_prefix', maxLength: 20 }),
  diagram_renderer_a_url: str({ format: 'url' }),
  diagram_renderer_b_url: str({ format: 'url' }),
  rate_limiting_response_text: str(),
  sign_in_text: str(),
  terms: str(),
  repository_storages: { type: 'strings', default: ['default'] },
  repository_storages_weighted: { type: 'object', default: { default: 100 } },

  // ---- arrays
  restricted_visibility_levels: { type: 'strings', default: [] },
  outbound_local_requests_whitelist: { type: 'strings', default: [] },
  domain_allowlist: { type: 'strings?', default: null },
  domain_denylist: { type: 'strings', default: [] },
  // The instance's own host is always allowed (appended on every write).
  asset_proxy_allowlist: { type: 'strings', default: (ctx: DefaultsContext) => [ctx.host] },
  asset_proxy_whitelist: { type: 'strings', default: [], aliasOf: 'asset_proxy_allowlist' },
  disabled_oauth_sign_in_sources: { type: 'strings', default: [] },
  import_sources: { type: 'strings', default: [...IMPORT_SOURCES], values: IMPORT_SOURCES },
  searchengine_namespace_ids: { type: 'integers', default: [] },
  searchengine_project_ids: { type: 'integers', default: [] },
} satisfies Record<string, SettingDef>;

export type SettingName = keyof typeof SETTINGS;

type ValueOfType<T extends SettingType> = T extends 'boolean'
  ? boolean
  : T extends 'integer' | 'decimal' | 'float'
    ? number
    : T extends 'integer?'
      ? number | null
      : T extends 'string'
        ? string | null
        : T extends 'strings'
          ? string[]
          : T extends 'strings?'
            ? string[] | null
            : T extends 'integers'
              ? number[]
              : Record<string, number>;

/** Current values of every setting (secrets in clear: for the services that use them). */
export type Settings = { [K in SettingName]: ValueOfType<(typeof SETTINGS)[K]['type']> };

export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

export const defOf = (name: SettingName): SettingDef => SETTINGS[name] as SettingDef;

export function defaultOf(name: SettingName, ctx: DefaultsContext): unknown {
  const d = defOf(name).default;
  const v = typeof d === 'function' ? (d as (x: DefaultsContext) => unknown)(ctx) : d;
  return Array.isArray(v) ? [...v] : v && typeof v === 'object' ? { ...(v as object) } : v;
}

/** Settings whose values live in storage (not aliases, not fixed, not derived). */
export const STORED_NAMES = SETTING_NAMES.filter((n) => {
  const d = defOf(n);
  return !d.aliasOf && d.fixed === undefined && !d.computed;
});

export const SECRET_NAMES = SETTING_NAMES.filter((n) => defOf(n).secret);
