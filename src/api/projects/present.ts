// ProjectView → the Project resource (simple or full form).
import type { Static } from '@sinclair/typebox';
import { sshCloneUrl } from '../../shared/clone_urls.js';
import type { Container } from '../../domain/context.js';
import { visibilityName } from '../../domain/members/policy.js';
import { canAdminProject, canCreateMergeRequestIn, canReadStatistics, featureAvailable } from '../../domain/projects/policy.js';
import type { ProjectView } from '../../domain/projects/service.js';
import type { ProjectAny, ProjectSimple } from './schemas.js';
import { REPOSITORY_STORAGES } from '../../domain/settings/definitions.js';

/** Until notification settings exist everyone is on the default level, `global`. */
const NOTIFICATION_GLOBAL = 3;

const bool = (v: number) => v === 1;
const access = (level: number | null) => (level === null ? null : { access_level: level, notification_level: NOTIFICATION_GLOBAL });

export function presentProjectSimple(c: Container, v: ProjectView): Static<typeof ProjectSimple> {
  const base = c.config.externalUrl;
  const p = v.row;
  // The stored full path is refreshed on rename and transfer; the namespace's is the truth.
  const fullPath = `${v.namespace.full_path}/${p.path}`;
  const webUrl = `${base}/${fullPath}`;
  return {
    id: p.id,
    description: p.description,
    default_branch: p.default_branch,
    ssh_url_to_repo: sshCloneUrl(c.config, fullPath),
    http_url_to_repo: `${webUrl}.git`,
    web_url: webUrl,
    // The README the project was initialized with (repositories fill this in from their tree).
    readme_url: p.initialize_with_readme && p.default_branch ? `${webUrl}/-/blob/${p.default_branch}/README.md` : null,
    tag_list: v.topics,
    topics: v.topics,
    name: p.name,
    name_with_namespace: `${v.namespaceFullName} / ${p.name}`,
    path: p.path,
    path_with_namespace: fullPath,
    created_at: p.created_at,
    last_activity_at: p.last_activity_at,
    forks_count: p.forks_count,
    avatar_url: p.avatar_path ? `${base}/uploads/-/system/project/avatar/${p.id}/${p.avatar_path}` : null,
    star_count: p.star_count,
  };
}

export function presentProject(c: Container, v: ProjectView): Static<typeof ProjectAny> {
  const simple = presentProjectSimple(c, v);
  if (!v.full) return v.customAttributes ? { ...simple, custom_attributes: v.customAttributes } : simple;
  const p = v.row;
  const a = v.access;
  const api = `${c.config.externalUrl}/api/v4/projects/${p.id}`;
  const issues = featureAvailable(p.issues_access_level, a);
  const mergeRequests = featureAvailable(p.merge_requests_access_level, a);
  // One object literal, the simple form's fields copied by name. Adding these 45 fields to the
  // simple form (Object.assign) left a slow dictionary object: about 2 µs a project to build, and
  // slower to serialize; a spread into the literal is slower still.
  const out: Static<typeof ProjectAny> = {
    id: simple.id, description: simple.description, default_branch: simple.default_branch, ssh_url_to_repo: simple.ssh_url_to_repo,
    http_url_to_repo: simple.http_url_to_repo, web_url: simple.web_url, readme_url: simple.readme_url, tag_list: simple.tag_list,
    topics: simple.topics, name: simple.name, name_with_namespace: simple.name_with_namespace, path: simple.path,
    path_with_namespace: simple.path_with_namespace, created_at: simple.created_at, last_activity_at: simple.last_activity_at,
    forks_count: simple.forks_count, avatar_url: simple.avatar_url, star_count: simple.star_count,
    visibility: visibilityName(p.visibility_level),
    owner: v.owner ? { id: v.owner.id, name: v.owner.name, created_at: v.owner.created_at } : null,
    issues_enabled: issues,
    merge_requests_enabled: mergeRequests,
    jobs_enabled: featureAvailable(p.builds_access_level, a),
    wiki_enabled: featureAvailable(p.wiki_access_level, a),
    snippets_enabled: featureAvailable(p.snippets_access_level, a),
    can_create_merge_request_in: canCreateMergeRequestIn(p, a),
    resolve_outdated_diff_discussions: bool(p.resolve_outdated_diff_discussions),
    container_registry_enabled: featureAvailable(p.container_registry_access_level, a),
    container_registry_access_level: p.container_registry_access_level,
    security_and_compliance_access_level: p.security_and_compliance_access_level,
    open_issues_count: 0,
    creator_id: p.creator_id,
    namespace: { id: v.namespace.id, name: v.namespace.name, path: v.namespace.path, kind: v.namespace.kind, full_path: v.namespace.full_path },
    import_status: p.import_status,
    import_error: p.import_error,
    permissions: { project_access: access(v.projectAccessLevel), group_access: access(v.groupAccessLevel) },
    archived: bool(p.archived),
    shared_runners_enabled: bool(p.shared_runners_enabled),
    ci_default_git_depth: p.ci_default_git_depth,
    ci_forward_deployment_enabled: bool(p.ci_forward_deployment_enabled),
    ci_separated_caches: bool(p.ci_separated_caches),
    public_jobs: bool(p.public_jobs),
    shared_with_groups: v.sharedWithGroups.map((sg) => ({
      group_id: sg.group.id,
      group_name: sg.group.name,
      group_full_path: sg.group.full_path,
      group_access_level: sg.link.group_access,
      expires_at: sg.link.expires_at,
    })),
    only_allow_merge_if_pipeline_succeeds: bool(p.only_allow_merge_if_pipeline_succeeds),
    allow_merge_on_skipped_pipeline: bool(p.allow_merge_on_skipped_pipeline),
    restrict_user_defined_variables: bool(p.restrict_user_defined_variables),
    only_allow_merge_if_all_discussions_are_resolved: bool(p.only_allow_merge_if_all_discussions_are_resolved),
    remove_source_branch_after_merge: bool(p.remove_source_branch_after_merge),
    request_access_enabled: bool(p.request_access_enabled),
    merge_method: p.merge_method,
    squash_option: p.squash_option,
    autoclose_referenced_issues: bool(p.autoclose_referenced_issues),
    suggestion_commit_message: p.suggestion_commit_message,
    merge_commit_template: p.merge_commit_template,
    squash_commit_template: p.squash_commit_template,
    marked_for_deletion_at: p.marked_for_deletion_on,
    marked_for_deletion_on: p.marked_for_deletion_on,
    container_registry_image_prefix: `${c.config.externalHost}/${simple.path_with_namespace.toLowerCase()}`,
    // [adv] features no project uses here; the mirror's own fields appear only on a mirror, as in the reference.
    approvals_before_merge: 0,
    auto_devops_enabled: v.autoDevopsEnabled,
    auto_devops_deploy_strategy: 'continuous',
    mirror: false,
    external_authorization_classification_label: null,
    packages_enabled: true,
    service_desk_enabled: false,
    service_desk_address: null,
    _links: {
      self: api,
      ...(issues ? { issues: `${api}/issues` } : {}),
      ...(mergeRequests ? { merge_requests: `${api}/merge_requests` } : {}),
      repo_branches: `${api}/repository/branches`,
      labels: `${api}/labels`,
      events: `${api}/events`,
      members: `${api}/members`,
      cluster_agents: `${api}/cluster_agents`,
    },
  };
  if (canAdminProject(a) && v.runnersToken) out.runners_token = v.runnersToken;
  if (a.admin) out.repository_storage = REPOSITORY_STORAGES[0];
  if (v.withLicense) {
    // No repository, so no license file: the reference answers null for both.
    out.license_url = null;
    out.license = null;
  }
  if (v.withStatistics && canReadStatistics(a)) {
    // Repository figures come from the cache (repository/statistics.ts); wikis, LFS, artifacts and packages do not exist yet.
    const rs = v.repositoryStatistics;
    out.statistics = {
      commit_count: rs?.commitCount ?? 0,
      storage_size: rs?.repositorySize ?? 0,
      repository_size: rs?.repositorySize ?? 0,
      wiki_size: 0,
      lfs_objects_size: 0,
      job_artifacts_size: 0,
      pipeline_artifacts_size: 0,
      packages_size: 0,
      snippets_size: 0,
      uploads_size: 0,
    };
  }
  if (v.forkedFrom) out.forked_from_project = presentProjectSimple(c, v.forkedFrom);
  if (v.customAttributes) out.custom_attributes = v.customAttributes;
  return out;
}
