// Projects: one function per operation. Rules here; SQL in db/repos/projects.ts.
import type { Container } from '../context.js';
import { canReadProfile } from '../users/policy.js';
import type { RepositoryStatisticsRow } from '../../db/repos/repository_statistics.js';
import { repositoryStatistics } from '../repository/statistics.js';
import { destroyProjectRows } from '../../db/repos/project_lifecycle.js';
import { createProjectRepository, removeProjectRepository, repositoryDir } from '../repository/service.js';
import { findBranch, setHeadBranch } from '../../git/refs.js';
import { protectDefaultBranch } from '../protected_branches/service.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { projectContexts, type ProjectContext } from '../../db/repos/project_context.js';
import {
  findNamespaceByFullPath,
  findNamespaceById,
  findSelfAndDescendants,
  type NamespaceRow,
} from '../../db/repos/namespaces.js';
import {
  findProjectsByIds,
  insertProject,
  pageProjects,
  projectTaken,
  updateProject as updateProjectRow,
  type ProjectListFilter,
  isStatisticsOrder,
  type ProjectOrder,
  type ProjectPatch,
  type ProjectRow,
} from '../../db/repos/projects.js';
import { findUserByIdOrUsername, type UserRow } from '../../db/repos/users.js';
import { isAdmin, type Actor } from '../auth/actor.js';
import { apiError, exactError, forbidden, invalidParams, notFound, validation } from '../errors.js';
import { customAttributeFilter, withCustomAttributes, type CustomAttributeView } from '../custom_attributes/lists.js';
import { recordEvent } from '../events/service.js';
import { projectSystemEvent } from '../hooks/events.js';
import { findGroup, fullNamesOf } from '../groups/find.js';
import { findNamespace } from '../namespaces/find.js';
import { pathErrors, rubyErrorsInspect } from '../groups/validation.js';
import { getSettings } from '../settings/service.js';
import { ACCESS, VISIBILITY, accessLevelInGroup, authorizedScope, visibilityName, visibleLevelsFor, type VisibilityName } from '../members/policy.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { newRegistrationToken, openRegistrationToken } from '../runners/registration_tokens.js';
import { nowIso, today } from '../../shared/time.js';
import {
  accessFor,
  canAdminProject,
  canCreateProjectIn,
  isProjectOwner,
  roleFromContext,
  type ProjectAccess,
} from './policy.js';
import { findProject } from './find.js';
import { personalProjectsLimitError } from './limits.js';
import { liveLinksOfProjects, sharedAccessLevels, visibleSharedGroups, type SharedGroupView } from './shared_access.js';

// ---- instance defaults ----

/** Instance settings projects depend on. */
export interface ProjectSettings {
  defaultVisibility: VisibilityName;
  defaultBranchName: string;
  restrictedVisibilityLevels: number[];
}

const LEVEL_BY_NAME: Record<string, number> = { private: 0, internal: 10, public: 20 };

/** Reads the instance settings; an unset default branch name falls back to `main`. */
export async function projectSettings(c: Container): Promise<ProjectSettings> {
  const s = await getSettings(c);
  const visibility = s.default_project_visibility;
  return {
    defaultVisibility: visibility === 'internal' || visibility === 'public' ? visibility : 'private',
    defaultBranchName: s.default_branch_name || 'main',
    // Stored as names; numeric strings (as some clients send them) count too.
    restrictedVisibilityLevels: (s.restricted_visibility_levels ?? []).map((v) => LEVEL_BY_NAME[String(v)] ?? Number(v)),
  };
}

// ---- the view a presenter needs ----

/** The namespace a project lives in, as presenting it needs. */
export type ProjectNamespace = Pick<NamespaceRow, 'id' | 'kind' | 'name' | 'path' | 'full_path' | 'full_path_lower' | 'owner_id'>;

export interface ProjectView {
  row: ProjectRow;
  namespace: ProjectNamespace;
  /** The namespace's full name (group names from the top down, or the user's name). */
  namespaceFullName: string;
  /** The user who owns a personal namespace; null for group projects. */
  owner: Pick<UserRow, 'id' | 'name' | 'created_at'> | null;
  topics: string[];
  access: ProjectAccess;
  /** The caller's own project membership and highest group membership (the `permissions` object). */
  projectAccessLevel: number | null;
  groupAccessLevel: number | null;
  /** The project this one was forked from, when the caller may see it. */
  forkedFrom: ProjectView | null;
  /** Live links to groups the caller may see (full form only). */
  sharedWithGroups: SharedGroupView[];
  /** Full form (signed in, not `simple`) or the simple one. */
  full: boolean;
  withStatistics: boolean;
  /** With `withStatistics` and read_statistics: the cached repository figures (null until first computed). */
  repositoryStatistics?: RepositoryStatisticsRow | null;
  withLicense: boolean;
  /** Auto DevOps, which a project has only implicitly: the instance's `auto_devops_enabled` (full form). */
  autoDevopsEnabled: boolean;
  /** Present when an admin asked `with_custom_attributes`. */
  customAttributes?: CustomAttributeView[];
  /** The runner registration token, for those who manage the project's runners (full form). */
  runnersToken: string | null;
}

export interface ViewOptions {
  full: boolean;
  statistics?: boolean;
  license?: boolean;
}

const namespaceOf = (x: ProjectContext): ProjectNamespace => ({
  id: x.ns_id,
  kind: x.ns_kind,
  name: x.ns_name,
  path: x.ns_path,
  full_path: x.ns_full_path,
  full_path_lower: x.ns_full_path_lower,
  owner_id: x.ns_owner_id,
});

/**
 * Builds views for rows, keeping order: their contexts in one joined read (unless the caller
 * read them with the rows), then only what some rows need (ancestor names of nested groups,
 * group links, forked-from projects, statistics).
 */
async function buildViews(
  c: Container,
  actor: Actor | null,
  rows: ProjectRow[],
  opts: ViewOptions,
  known?: Map<number, ProjectContext>,
  depth = 0,
): Promise<ProjectView[]> {
  if (rows.length === 0) return [];
  const userId = actor?.user.id ?? null;
  const contexts = known ?? (await projectContexts(c.db, rows.map((r) => r.id), userId, today()));
  const contextOf = (row: ProjectRow) => contexts.get(row.id)!;
  const fullNames = await fullNamesOf(
    c,
    [...contexts.values()].filter((x) => x.ns_kind === 'group').map((x) => ({ full_path_lower: x.ns_full_path_lower, name: x.ns_name })),
  );

  const shared = rows.filter((row) => contextOf(row).live_links > 0).map((row) => row.id);
  const links = shared.length ? await liveLinksOfProjects(c, shared) : [];
  const sharedLevels = actor && links.length ? await sharedAccessLevels(c, actor.user.id, links) : new Map<number, number>();

  const forkedIds = [...new Set(rows.map((r) => r.forked_from_id).filter((id): id is number => id !== null))];
  const forkedViews = new Map<number, ProjectView>();
  if (depth === 0 && forkedIds.length) {
    const sources = await findProjectsByIds(c.db, forkedIds);
    for (const v of await buildViews(c, actor, sources, { full: false }, undefined, depth + 1)) if (v.access.canRead) forkedViews.set(v.row.id, v);
  }

  const sharedGroups = opts.full ? await visibleSharedGroups(c, actor, links) : new Map<number, SharedGroupView[]>();
  const access = new Map(
    rows.map((row) => [row.id, accessFor(actor, row, userId === null ? ACCESS.NONE : roleFromContext(userId, contextOf(row), sharedLevels.get(row.id) ?? ACCESS.NONE))]),
  );
  // One project's figures are computed now if never cached (bounded: once per project); a longer list's missing ones are queued.
  const readable = rows.filter((row) => access.get(row.id)!.canRead).map((row) => row.id);
  const stats = opts.statistics ? await repositoryStatistics(c, readable, { computeMissing: rows.length === 1 }) : null;
  const autoDevopsEnabled = opts.full && (await getSettings(c)).auto_devops_enabled;

  return rows.map((row) => {
    const x = contextOf(row);
    const group = x.ns_kind === 'group';
    return {
      row,
      namespace: namespaceOf(x),
      namespaceFullName: group ? fullNames.get(x.ns_full_path_lower)! : x.ns_name,
      owner: x.owner_id === null ? null : { id: x.owner_id, name: x.owner_name!, created_at: x.owner_created_at! },
      topics: JSON.parse(x.topics_json) as string[],
      access: access.get(row.id)!,
      projectAccessLevel: x.member_level,
      groupAccessLevel: group && x.group_level !== null && x.group_level > ACCESS.NONE ? x.group_level : null,
      forkedFrom: row.forked_from_id !== null ? (forkedViews.get(row.forked_from_id) ?? null) : null,
      sharedWithGroups: sharedGroups.get(row.id) ?? [],
      full: opts.full,
      withStatistics: !!opts.statistics,
      repositoryStatistics: stats ? (stats.get(row.id) ?? null) : undefined,
      withLicense: !!opts.license,
      autoDevopsEnabled,
      runnersToken: opts.full && canAdminProject(access.get(row.id)!) ? openRegistrationToken(c, row.runners_token) : null,
    };
  });
}

export const view = async (c: Container, actor: Actor | null, row: ProjectRow, opts: ViewOptions) => (await buildViews(c, actor, [row], opts))[0];

export async function getProject(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  opts: { statistics: boolean; license: boolean; withCustomAttributes?: boolean },
): Promise<ProjectView> {
  const { row, context } = await findProject(c, actor, idOrPath, { recent: true });
  const v = (await buildViews(c, actor, [row], { full: actor !== null, statistics: opts.statistics, license: opts.license }, new Map([[row.id, context]])))[0];
  return (await withCustomAttributes(c, actor, 'project', [v], opts.withCustomAttributes, (p) => p.row.id))[0];
}

// ---- names, paths, settings ----

const NAME_RE = /^[\p{L}\p{N}\p{Extended_Pictographic}_][\p{L}\p{N}\p{Extended_Pictographic}\p{Pd}+_. ]*$/u;
const NAME_MESSAGE = "can contain only letters, digits, emojis, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'.";
const PATH_RE = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/;

export function nameErrors(name: string): string[] {
  if (name.trim() === '') return ["can't be blank"];
  const errors: string[] = [];
  if (!NAME_RE.test(name)) errors.push(NAME_MESSAGE);
  if (name.length > 255) errors.push('is too long (maximum is 255 characters)');
  return errors;
}

/** Rails' String#parameterize: ASCII, lowercase, runs of anything else become one dash. */
function parameterize(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-zA-Z0-9\-_]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();
}

/** The reference's rule: a path from the name is the name itself when it is a valid path, else the name parameterized. */
const pathFromName = (name: string): string => (PATH_RE.test(name) && !/\.(git|atom)$/i.test(name) ? name : parameterize(name));

function cleanTopics(list: string[] | undefined): string[] | undefined {
  if (list === undefined) return undefined;
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of list.map((x) => x.trim()).filter(Boolean)) {
    if (!seen.has(t.toLowerCase())) {
      seen.add(t.toLowerCase());
      out.push(t);
    }
  }
  return out;
}

type AccessLevelName = 'disabled' | 'private' | 'enabled';

/** Settings a project's owner or maintainers may edit, on create and update. */
export interface ProjectSettingsInput {
  description?: string;
  default_branch?: string;
  visibility?: VisibilityName;
  topics?: string[];
  tag_list?: string[];
  issues_enabled?: boolean;
  merge_requests_enabled?: boolean;
  jobs_enabled?: boolean;
  wiki_enabled?: boolean;
  snippets_enabled?: boolean;
  container_registry_enabled?: boolean;
  container_registry_access_level?: AccessLevelName;
  security_and_compliance_access_level?: AccessLevelName;
  resolve_outdated_diff_discussions?: boolean;
  shared_runners_enabled?: boolean;
  ci_default_git_depth?: number;
  ci_forward_deployment_enabled?: boolean;
  ci_separated_caches?: boolean;
  ci_config_path?: string;
  public_jobs?: boolean;
  public_builds?: boolean;
  only_allow_merge_if_pipeline_succeeds?: boolean;
  allow_merge_on_skipped_pipeline?: boolean;
  restrict_user_defined_variables?: boolean;
  only_allow_merge_if_all_discussions_are_resolved?: boolean;
  remove_source_branch_after_merge?: boolean;
  request_access_enabled?: boolean;
  merge_method?: 'merge' | 'rebase_merge' | 'ff';
  squash_option?: 'never' | 'always' | 'default_on' | 'default_off';
  autoclose_referenced_issues?: boolean;
  suggestion_commit_message?: string;
  merge_commit_template?: string;
  squash_commit_template?: string;
}

const bit = (b: boolean | undefined) => (b === undefined ? undefined : b ? 1 : 0);
const feature = (b: boolean | undefined): AccessLevelName | undefined => (b === undefined ? undefined : b ? 'enabled' : 'disabled');
const orNull = (s: string | undefined) => (s === undefined ? undefined : s === '' ? null : s);

/** The columns these settings write (undefined: leave as is). Also what an import's override_params set. */
export function settingsPatch(i: ProjectSettingsInput): ProjectPatch {
  const patch: ProjectPatch = {
    description: i.description,
    default_branch: i.default_branch === '' ? undefined : i.default_branch,
    visibility_level: i.visibility === undefined ? undefined : VISIBILITY[i.visibility],
    issues_access_level: feature(i.issues_enabled),
    merge_requests_access_level: feature(i.merge_requests_enabled),
    builds_access_level: feature(i.jobs_enabled),
    wiki_access_level: feature(i.wiki_enabled),
    snippets_access_level: feature(i.snippets_enabled),
    container_registry_access_level: i.container_registry_access_level ?? feature(i.container_registry_enabled),
    security_and_compliance_access_level: i.security_and_compliance_access_level,
    resolve_outdated_diff_discussions: bit(i.resolve_outdated_diff_discussions),
    shared_runners_enabled: bit(i.shared_runners_enabled),
    ci_default_git_depth: i.ci_default_git_depth,
    ci_forward_deployment_enabled: bit(i.ci_forward_deployment_enabled),
    ci_separated_caches: bit(i.ci_separated_caches),
    ci_config_path: orNull(i.ci_config_path),
    public_jobs: bit(i.public_jobs ?? i.public_builds),
    only_allow_merge_if_pipeline_succeeds: bit(i.only_allow_merge_if_pipeline_succeeds),
    allow_merge_on_skipped_pipeline: bit(i.allow_merge_on_skipped_pipeline),
    restrict_user_defined_variables: bit(i.restrict_user_defined_variables),
    only_allow_merge_if_all_discussions_are_resolved: bit(i.only_allow_merge_if_all_discussions_are_resolved),
    remove_source_branch_after_merge: bit(i.remove_source_branch_after_merge),
    request_access_enabled: bit(i.request_access_enabled),
    merge_method: i.merge_method,
    squash_option: i.squash_option,
    autoclose_referenced_issues: bit(i.autoclose_referenced_issues),
    suggestion_commit_message: orNull(i.suggestion_commit_message),
    merge_commit_template: orNull(i.merge_commit_template),
    squash_commit_template: orNull(i.squash_commit_template),
  };
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as ProjectPatch;
}

/** Model validations shared by create and update, in the reference's words. */
async function checkSettings(
  c: Container,
  actor: Actor,
  ns: NamespaceRow,
  visibilityLevel: number | undefined,
  i: ProjectSettingsInput,
  errors: Record<string, string[]>,
): Promise<void> {
  if (visibilityLevel !== undefined) {
    const settings = await projectSettings(c);
    if (!isAdmin(actor) && settings.restrictedVisibilityLevels.includes(visibilityLevel)) {
      const label = visibilityName(visibilityLevel);
      (errors.visibility_level ??= []).push(`${label[0].toUpperCase()}${label.slice(1)} has been restricted by your administrator`);
    } else if (ns.kind === 'group' && visibilityLevel > ns.visibility_level) {
      (errors.visibility_level ??= []).push(`${visibilityName(visibilityLevel)} is not allowed in a ${visibilityName(ns.visibility_level)} group.`);
    }
  }
  if (i.ci_default_git_depth !== undefined && (i.ci_default_git_depth < 0 || i.ci_default_git_depth > 1000)) {
    (errors.ci_default_git_depth ??= []).push(i.ci_default_git_depth < 0 ? 'must be greater than or equal to 0' : 'must be less than or equal to 1000');
  }
  if (i.description !== undefined && i.description.length > 2000) (errors.description ??= []).push('is too long (maximum is 2000 characters)');
  for (const t of cleanTopics(i.topics ?? i.tag_list) ?? []) {
    if (t.length > 255) (errors.topics ??= []).push('is too long (maximum is 255 characters)');
  }
}

// ---- create ----

export interface CreateProjectInput extends ProjectSettingsInput {
  name?: string;
  path?: string;
  namespace_id?: number;
  initialize_with_readme?: boolean;
}

/** POST /projects (as the caller) and POST /projects/user/:user_id (admin, for that user). */
export async function createProject(c: Container, actor: Actor, input: CreateProjectInput, forUser?: number | string): Promise<ProjectView> {
  let creator = actor.user;
  if (forUser !== undefined) {
    if (!isAdmin(actor)) throw forbidden();
    const u = await findUserByIdOrUsername(c.db, forUser);
    if (!u) throw notFound('User');
    creator = u;
  }
  const creatorActor: Actor = forUser !== undefined ? { ...actor, user: creator, sudoer: null } : actor;

  // Name and path fill each other in, as the reference's create service does.
  const name = input.name ?? input.path!;
  const path = input.path ?? pathFromName(name);

  const nsId = input.namespace_id ?? creator.namespace_id;
  const ns = nsId !== null && nsId !== undefined ? await findNamespaceById(c.db, nsId) : undefined;
  if (!ns || !(await canCreateProjectIn(c, creatorActor, ns))) throw validation({ namespace: ['is not valid'] });

  const settings = await projectSettings(c);
  const visibilityLevel = VISIBILITY[input.visibility ?? settings.defaultVisibility];

  const errors: Record<string, string[]> = {};
  const ne = nameErrors(name);
  if (ne.length) errors.name = ne;
  else if (await projectTaken(c.db, ns.id, 'name', name, null)) errors.name = ['has already been taken'];
  const pe = pathErrors(path, false);
  if (pe.length) errors.path = pe;
  else if ((await projectTaken(c.db, ns.id, 'path', path, null)) || (await findNamespaceByFullPath(c.db, `${ns.full_path}/${path}`))) {
    errors.path = ['has already been taken'];
  }
  // A group namespace's visibility caps the project's only when the caller asked for it explicitly;
  // the instance default is lowered to fit instead.
  const level = input.visibility === undefined && ns.kind === 'group' ? Math.min(visibilityLevel, ns.visibility_level) : visibilityLevel;
  await checkSettings(c, creatorActor, ns, level, input, errors);
  const limitReached = await personalProjectsLimitError(c, creator, ns);
  if (limitReached) {
    // POST /projects answers a reached limit alone with 403; the admin's POST /projects/user/:id lists it with the rest.
    if (forUser === undefined) throw exactError(403, { message: [limitReached] });
    errors.limit_reached = [limitReached];
  }
  if (Object.keys(errors).length) throw validation(errors);

  const now = nowIso();
  const fullPath = `${ns.full_path}/${path}`;
  try {
    const row = await insertProject(
      c.db,
      {
        ...settingsPatch(input),
        name,
        path,
        full_path: fullPath,
        full_path_lower: fullPath.toLowerCase(),
        namespace_id: ns.id,
        creator_id: creator.id,
        description: input.description ?? null,
        visibility_level: level,
        default_branch: input.default_branch || settings.defaultBranchName,
        initialize_with_readme: input.initialize_with_readme ? 1 : 0,
        ...newRegistrationToken(c).stored,
        last_activity_at: now,
        created_at: now,
        updated_at: now,
      },
      {
        topics: cleanTopics(input.topics ?? input.tag_list) ?? [],
        // The owner of a personal namespace becomes the project's owner member, as in the reference.
        owner: ns.kind === 'group' || ns.owner_id === null ? null : { userId: ns.owner_id, accessLevel: ACCESS.OWNER },
        after: (tx, p) => projectSystemEvent(c, tx, 'project_create', p),
      },
    );
    try {
      await createProjectRepository(c, row, creator);
      await protectDefaultBranch(c, row);
    } catch (err) {
      // No project without its repository: undo the rows, then report the failure.
      await destroyProjectRows(c.db, row.id);
      removeProjectRepository(c, row.id);
      throw err;
    }
    await recordEvent(c, { action: 'created', authorId: creator.id, projectId: row.id });
    return view(c, actor, row, { full: true });
  } catch (err) {
    // A concurrent request took the path between the check and the insert.
    if (isUniqueViolation(err)) throw validation({ path: ['has already been taken'] });
    throw err;
  }
}

// ---- update ----

export interface UpdateProjectInput extends ProjectSettingsInput {
  name?: string;
  path?: string;
}

export async function updateProject(c: Container, actor: Actor, idOrPath: number | string, input: UpdateProjectInput): Promise<ProjectView> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canAdminProject(access)) throw forbidden();
  // rename_project and change_visibility_level belong to owners in the reference's policy.
  if (input.name !== undefined && input.name !== '' && !isProjectOwner(access)) throw forbidden();
  if (input.visibility !== undefined && !isProjectOwner(access)) throw forbidden();

  const ns = (await findNamespaceById(c.db, row.namespace_id))!;
  const errors: Record<string, string[]> = {};
  const patch: ProjectPatch = settingsPatch(input);
  if (input.name !== undefined && input.name !== row.name) {
    const ne = nameErrors(input.name);
    if (ne.length) errors.name = ne;
    else if (await projectTaken(c.db, ns.id, 'name', input.name, row.id)) errors.name = ['has already been taken'];
    patch.name = input.name;
  }
  let oldFullPath: string | undefined;
  if (input.path !== undefined && input.path !== row.path) {
    const pe = pathErrors(input.path, false);
    if (pe.length) errors.path = pe;
    else if ((await projectTaken(c.db, ns.id, 'path', input.path, row.id)) || (await findNamespaceByFullPath(c.db, `${ns.full_path}/${input.path}`))) {
      errors.path = ['has already been taken'];
    }
    const full = `${ns.full_path}/${input.path}`;
    Object.assign(patch, { path: input.path, full_path: full, full_path_lower: full.toLowerCase() });
    oldFullPath = row.full_path;
  }
  // As the reference's valid_visibility_level_change?, only a change of level is checked.
  const newLevel = input.visibility === undefined ? undefined : VISIBILITY[input.visibility];
  await checkSettings(c, actor, ns, newLevel === row.visibility_level ? undefined : newLevel, input, errors);
  if (Object.keys(errors).length) throw validation(errors);
  // As the reference's change_head: a new default branch must exist; HEAD then points at it.
  const newDefault = patch.default_branch !== undefined && patch.default_branch !== row.default_branch ? patch.default_branch : null;
  if (newDefault !== null && !(await findBranch(repositoryDir(c, row.id), newDefault))) {
    throw validation({ base: [`Could not change HEAD: branch '${newDefault}' does not exist`] });
  }

  patch.updated_at = nowIso();
  try {
    const updated = await updateProjectRow(c.db, row.id, patch, {
      topics: cleanTopics(input.topics ?? input.tag_list),
      oldFullPath,
      // As the reference: a new path is a rename, any other change an update.
      after: (tx, p) => (oldFullPath !== undefined ? projectSystemEvent(c, tx, 'project_rename', p, oldFullPath) : projectSystemEvent(c, tx, 'project_update', p)),
    });
    if (newDefault !== null) await setHeadBranch(repositoryDir(c, row.id), newDefault);
    await recordEvent(c, { action: 'updated', authorId: actor.user.id, projectId: row.id });
    return view(c, actor, updated, { full: true });
  } catch (err) {
    if (isUniqueViolation(err)) throw validation({ path: ['has already been taken'] });
    throw err;
  }
}

// ---- transfer ----

const transferFailed = (message: string) =>
  apiError(`Failed to transfer project ${rubyErrorsInspect({ new_namespace: [message] })}`);

/** PUT /projects/:id/transfer: owners move a project to a namespace where they may create projects. */
export async function transferProject(c: Container, actor: Actor, idOrPath: number | string, namespace: number | string): Promise<ProjectView> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!isProjectOwner(access)) throw forbidden();

  const { row: target } = await findNamespace(c, actor, namespace);

  if (target.id === row.namespace_id) throw transferFailed('Project is already in this namespace.');
  if (!(await canCreateProjectIn(c, actor, target))) throw transferFailed("You don't have permission to transfer projects into that namespace.");
  if (
    (await projectTaken(c.db, target.id, 'path', row.path, row.id)) ||
    (await projectTaken(c.db, target.id, 'name', row.name, row.id)) ||
    (await findNamespaceByFullPath(c.db, `${target.full_path}/${row.path}`))
  ) {
    throw transferFailed('Project with same name or path in target namespace already exists');
  }

  const full = `${target.full_path}/${row.path}`;
  const patch: ProjectPatch = { namespace_id: target.id, full_path: full, full_path_lower: full.toLowerCase(), updated_at: nowIso() };
  // A project may not be more visible than the group it moves into.
  if (target.kind === 'group' && row.visibility_level > target.visibility_level) patch.visibility_level = target.visibility_level;
  const updated = await updateProjectRow(c.db, row.id, patch, {
    oldFullPath: row.full_path,
    after: (tx, p) => projectSystemEvent(c, tx, 'project_transfer', p, row.full_path),
  });
  return view(c, actor, updated, { full: true });
}

// Deletion (at once or delayed), restore, archive: lifecycle.ts.

// ---- lists ----

export const OFFSET_LIMIT = 50_000;

export interface ListProjectsInput {
  archived?: boolean;
  visibility?: VisibilityName;
  search?: string;
  search_namespaces?: boolean;
  owned?: boolean;
  starred?: boolean;
  imported?: boolean;
  membership?: boolean;
  min_access_level?: number;
  topic?: string[];
  topic_id?: number;
  last_activity_after?: string;
  last_activity_before?: string;
  id_after?: number;
  id_before?: number;
  with_issues_enabled?: boolean;
  with_merge_requests_enabled?: boolean;
  with_programming_language?: string;
  repository_checksum_failed?: boolean;
  wiki_checksum_failed?: boolean;
  simple?: boolean;
  statistics?: boolean;
  custom_attributes?: Record<string, unknown>;
  with_custom_attributes?: boolean;
  order_by: ProjectOrder;
  sort: 'asc' | 'desc';
}

function isoOrInvalid(name: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw invalidParams(`${name} is invalid`);
  return new Date(t).toISOString();
}

/** One page of projects, as the reference's projects finder: visibility first, then the filters. */
export async function listWith(
  c: Container,
  actor: Actor | null,
  input: ListProjectsInput,
  page: PageRequest,
  base: Partial<ProjectListFilter>,
): Promise<PageResult<ProjectView>> {
  if (page.kind === 'offset' && page.page * page.perPage > OFFSET_LIMIT) {
    throw exactError(405, {
      error:
        `Offset pagination has a maximum allowed offset of ${OFFSET_LIMIT} for requests that return objects of type Project. ` +
        'Remaining records can be retrieved using keyset pagination.',
    });
  }
  const admin = isAdmin(actor);
  // Size orderings (by the project's statistics) are for admins; everyone else gets the default order.
  const orderBy: ProjectOrder = isStatisticsOrder(input.order_by) && !admin ? 'created_at' : input.order_by;

  const f: ProjectListFilter = {
    scope: { kind: 'public' },
    ...base,
    archived: input.archived,
    visibilityLevel: input.visibility === undefined ? undefined : VISIBILITY[input.visibility],
    search: input.search || undefined,
    searchNamespaces: input.search_namespaces,
    topics: cleanTopics(input.topic),
    topicId: input.topic_id,
    programmingLanguage: input.with_programming_language?.trim() || undefined,
    lastActivityAfter: isoOrInvalid('last_activity_after', input.last_activity_after),
    lastActivityBefore: isoOrInvalid('last_activity_before', input.last_activity_before),
    idAfter: input.id_after,
    idBefore: input.id_before,
    withIssuesEnabled: input.with_issues_enabled,
    withMergeRequestsEnabled: input.with_merge_requests_enabled,
    customAttributes: customAttributeFilter(actor, input.custom_attributes),
    orderBy,
    sort: input.sort,
  };

  if (!actor) {
    f.scope = { kind: 'public' };
    if (input.owned || input.membership || input.min_access_level !== undefined) f.none = true;
  } else {
    f.scope = admin ? { kind: 'all' } : { kind: 'user', levels: visibleLevelsFor(actor), access: authorizedScope(actor, ACCESS.GUEST) };
    if (input.owned) f.authorized = authorizedScope(actor, ACCESS.OWNER);
    else if (input.min_access_level !== undefined) f.authorized = authorizedScope(actor, input.min_access_level);
    else if (input.membership) f.authorized = authorizedScope(actor, ACCESS.GUEST);
    if (input.starred) f.starredBy = [...(f.starredBy ?? []), actor.user.id];
    if (input.imported) f.importedBy = actor.user.id;
  }
  // Anvil computes no repository or wiki checksums, so none has failed ([adv] filters).
  if (input.repository_checksum_failed || input.wiki_checksum_failed) f.none = true;

  const result = await pageProjects(c.db, f, page, { userId: actor?.user.id ?? null, today: today() });
  const contexts = new Map(result.items.map((p) => [p.row.id, p.context]));
  const rows = result.items.map((p) => p.row);
  const items = await buildViews(c, actor, rows, { full: actor !== null && !input.simple, statistics: input.statistics }, contexts);
  return { ...result, items: await withCustomAttributes(c, actor, 'project', items, input.with_custom_attributes, (p) => p.row.id) };
}

/** GET /projects. */
export const listProjects = (c: Container, actor: Actor | null, input: ListProjectsInput, page: PageRequest) => listWith(c, actor, input, page, {});

/** GET /users/:user_id/projects: the projects in that user's personal namespace. */
export async function listUserProjects(
  c: Container,
  actor: Actor | null,
  userIdOrName: string,
  input: ListProjectsInput,
  page: PageRequest,
): Promise<PageResult<ProjectView>> {
  const { user, hidden } = await profileOwner(c, actor, userIdOrName);
  return listWith(c, actor, input, page, { namespaceIds: user.namespace_id === null ? [] : [user.namespace_id], none: hidden || undefined });
}

/**
 * The user named in a `/users/:user_id/...` project list (404 when unknown), and whether their
 * private profile hides the list from this caller (everyone but the user and admins).
 */
export async function profileOwner(c: Container, actor: Actor | null, userIdOrName: string): Promise<{ user: UserRow; hidden: boolean }> {
  const user = await findUserByIdOrUsername(c.db, userIdOrName);
  if (!user) throw notFound('User');
  return { user, hidden: !canReadProfile(actor, user) };
}

/**
 * GET /groups/:id/projects: projects in the group (and the groups below it with include_subgroups),
 * and unless with_shared=false those shared with the group itself (the reference shares no
 * subgroup's shares here).
 */
export async function listGroupProjects(
  c: Container,
  actor: Actor | null,
  groupIdOrPath: number | string,
  input: ListProjectsInput & { include_subgroups?: boolean; with_shared?: boolean },
  page: PageRequest,
): Promise<PageResult<ProjectView>> {
  const { row } = await findGroup(c, actor, groupIdOrPath);
  const ids = input.include_subgroups ? (await findSelfAndDescendants(c.db, row)).map((n) => n.id) : [row.id];
  return listWith(c, actor, input, page, { namespaceIds: ids, sharedWithGroupId: input.with_shared === false ? undefined : row.id });
}

/** GET /groups/:id/projects/shared: the projects shared with the group. */
export async function listGroupSharedProjects(
  c: Container,
  actor: Actor | null,
  groupIdOrPath: number | string,
  input: ListProjectsInput,
  page: PageRequest,
): Promise<PageResult<ProjectView>> {
  const { row } = await findGroup(c, actor, groupIdOrPath);
  return listWith(c, actor, input, page, { sharedWithGroupId: row.id });
}

/** How many of each a group's detail lists (the reference's GroupProjectsFinder limit). */
const GROUP_DETAIL_PROJECTS = 100;

/**
 * A group's `projects` and `shared_projects` in its detail: the visitor's view of each, newest
 * first, at most 100 each; with custom attributes when an admin asked for the group's.
 */
export async function groupDetailProjects(
  c: Container,
  actor: Actor | null,
  groupId: number,
  opts: { withCustomAttributes?: boolean } = {},
): Promise<{ projects: ProjectView[]; shared: ProjectView[] }> {
  const input: ListProjectsInput = { order_by: 'id', sort: 'desc', with_custom_attributes: opts.withCustomAttributes };
  // A first keyset page: the same rows as an offset one, without counting the group's projects.
  const page: PageRequest = { kind: 'keyset', perPage: GROUP_DETAIL_PROJECTS, sort: 'desc', idAfter: null, idBefore: null, cursor: null };
  const [own, shared] = await Promise.all([
    listWith(c, actor, input, page, { namespaceIds: [groupId] }),
    listWith(c, actor, input, page, { sharedWithGroupId: groupId }),
  ]);
  return { projects: own.items, shared: shared.items };
}
