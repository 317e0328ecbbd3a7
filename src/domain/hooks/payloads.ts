// The bodies hooks receive, shaped as the reference's system hook and webhook payloads
// (its SystemHooksService, DataBuilder::Push/Repository/Pipeline/Build), with Anvil's URLs.
import type { Kysely } from 'kysely';
import { sshCloneUrl } from '../../shared/clone_urls.js';
import type { Container } from '../context.js';
import { findNamespaceById, type NamespaceRow } from '../../db/repos/namespaces.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { findUserById, type UserRow } from '../../db/repos/users.js';
import { namespaceOwners } from '../../db/repos/hooks.js';
import type { DB } from '../../db/schema.js';
import type { CommitInfo } from '../../git/objects.js';
import { ACCESS_NAMES, visibilityName } from '../members/policy.js';
import type { ReleaseLinkRow, ReleaseRow } from '../../db/repos/releases.js';
import { isExternalLink, releaseWebUrl, sourceUrls } from '../releases/urls.js';

/** Rails' `created_at`/`updated_at` in hook payloads: ISO 8601 in UTC without milliseconds. */
const hookTime = (iso: string | null) => (iso === null ? null : iso.replace(/\.\d{3}Z$/, 'Z'));
/** The reference's "2021-02-23 02:41:37 UTC" form of pipeline and job times. */
export const ciTime = (iso: string | null) => (iso === null ? null : `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`);

export const avatarUrl = (c: Container, u: Pick<UserRow, 'id' | 'avatar_path'>) =>
  u.avatar_path ? `${c.config.externalUrl}/uploads/-/system/user/avatar/${u.id}/${u.avatar_path}` : null;

/** A project with what every payload needs about it. */
export interface HookProject {
  row: ProjectRow;
  namespace: NamespaceRow;
  fullPath: string;
}

export async function hookProject(db: Kysely<DB>, row: ProjectRow): Promise<HookProject> {
  const namespace = (await findNamespaceById(db, row.namespace_id))!;
  return { row, namespace, fullPath: `${namespace.full_path}/${row.path}` };
}

// ---- system events ----

async function projectOwners(db: Kysely<DB>, p: HookProject): Promise<{ owner: { name: string; email: string }; owners: { name: string; email: string }[] }> {
  if (p.namespace.kind === 'user' && p.namespace.owner_id !== null) {
    const u = await findUserById(db, p.namespace.owner_id);
    const owner = { name: u?.name ?? '', email: u?.email ?? '' };
    return { owner, owners: [owner] };
  }
  const owners = (await namespaceOwners(db, p.namespace.id)).map((u) => ({ name: u.name, email: u.email }));
  return { owner: { name: p.namespace.name, email: '' }, owners };
}

export type ProjectEventName = 'project_create' | 'project_destroy' | 'project_rename' | 'project_transfer' | 'project_update';

export async function projectEventPayload(db: Kysely<DB>, name: ProjectEventName, p: HookProject, oldFullPath?: string): Promise<object> {
  const { owner, owners } = await projectOwners(db, p);
  return {
    event_name: name,
    created_at: hookTime(p.row.created_at),
    updated_at: hookTime(p.row.updated_at),
    name: p.row.name,
    path: p.row.path,
    path_with_namespace: p.fullPath,
    project_id: p.row.id,
    project_namespace_id: p.namespace.id,
    owner_name: owner.name,
    owner_email: owner.email,
    owners,
    project_visibility: visibilityName(p.row.visibility_level),
    ...(oldFullPath !== undefined ? { old_path_with_namespace: oldFullPath } : {}),
  };
}

export type UserEventName = 'user_create' | 'user_destroy' | 'user_rename' | 'user_failed_login';

export function userEventPayload(name: UserEventName, u: UserRow, oldUsername?: string): object {
  return {
    event_name: name,
    created_at: hookTime(u.created_at),
    updated_at: hookTime(u.updated_at),
    name: u.name,
    email: u.email,
    user_id: u.id,
    username: u.username,
    ...(name === 'user_failed_login' ? { state: u.state } : {}),
    ...(oldUsername !== undefined ? { old_username: oldUsername } : {}),
  };
}

export type KeyEventName = 'key_create' | 'key_destroy';

/** A user's SSH key added or removed (the reference's key system event). */
export const keyEventPayload = (name: KeyEventName, k: { id: number; key: string; created_at: string; updated_at: string }, owner: UserRow): object => ({
  event_name: name,
  created_at: hookTime(k.created_at),
  updated_at: hookTime(k.updated_at),
  username: owner.username,
  key: k.key,
  id: k.id,
});

export type TeamEventName = 'user_add_to_team' | 'user_remove_from_team' | 'user_update_for_team';
export type GroupMemberEventName = 'user_add_to_group' | 'user_remove_from_group' | 'user_update_for_group';

export interface MembershipFacts {
  accessLevel: number;
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
}

/** The membership part of a team or group member event; `access` names the level's field. */
function membershipPayload(name: string, access: 'access_level' | 'group_access', u: UserRow, m: MembershipFacts, source: object): object {
  return {
    event_name: name,
    created_at: hookTime(m.createdAt),
    updated_at: hookTime(m.updatedAt),
    [access]: ACCESS_NAMES[m.accessLevel] ?? String(m.accessLevel),
    expires_at: m.expiresAt,
    ...source,
    user_email: u.email,
    user_name: u.name,
    user_username: u.username,
    user_id: u.id,
  };
}

export const teamEventPayload = (name: TeamEventName, p: HookProject, u: UserRow, m: MembershipFacts): object => ({
  ...membershipPayload(name, 'access_level', u, m, {
    project_id: p.row.id,
    project_name: p.row.name,
    project_path: p.row.path,
    project_path_with_namespace: p.fullPath,
  }),
  project_visibility: visibilityName(p.row.visibility_level),
});

export const groupMemberEventPayload = (name: GroupMemberEventName, g: NamespaceRow, u: UserRow, m: MembershipFacts): object =>
  membershipPayload(name, 'group_access', u, m, { group_id: g.id, group_name: g.name, group_path: g.path });

export type GroupEventName = 'group_create' | 'group_destroy' | 'group_rename';

export function groupEventPayload(name: GroupEventName, g: NamespaceRow, old?: { path: string; fullPath: string }): object {
  return {
    event_name: name,
    created_at: hookTime(g.created_at),
    updated_at: hookTime(g.updated_at),
    name: g.name,
    path: g.path,
    full_path: g.full_path,
    group_id: g.id,
    owner_name: null,
    owner_email: null,
    ...(old ? { old_path: old.path, old_full_path: old.fullPath } : {}),
  };
}

/** The sample `POST /hooks/:id` sends and answers with. */
export const SYSTEM_HOOK_SAMPLE = {
  project_id: 1,
  owner_email: 'example@anvil.test',
  owner_name: 'Someone',
  name: 'Ruby',
  path: 'ruby',
  event_name: 'project_create',
};

// ---- repository events ----

export function projectObject(c: Container, p: HookProject) {
  const web = `${c.config.externalUrl}/${p.fullPath}`;
  const ssh = sshCloneUrl(c.config, p.fullPath);
  return {
    id: p.row.id,
    name: p.row.name,
    description: p.row.description,
    web_url: web,
    avatar_url: p.row.avatar_path ? `${c.config.externalUrl}/uploads/-/system/project/avatar/${p.row.id}/${p.row.avatar_path}` : null,
    git_ssh_url: ssh,
    git_http_url: `${web}.git`,
    namespace: p.namespace.name,
    visibility_level: p.row.visibility_level,
    path_with_namespace: p.fullPath,
    default_branch: p.row.default_branch,
    ci_config_path: p.row.ci_config_path,
    homepage: web,
    url: ssh,
    ssh_url: ssh,
    http_url: `${web}.git`,
  };
}

export function repositoryObject(c: Container, p: HookProject) {
  const o = projectObject(c, p);
  return { name: p.row.name, url: o.git_ssh_url, description: p.row.description, homepage: o.web_url, git_http_url: o.git_http_url, git_ssh_url: o.git_ssh_url, visibility_level: o.visibility_level };
}

export interface PushCommit {
  info: CommitInfo;
  added: string[];
  modified: string[];
  removed: string[];
}

export interface PushFacts {
  ref: string;
  before: string;
  after: string;
  refProtected: boolean;
  checkoutSha: string | null;
  /** The annotated tag's message, else null. */
  message: string | null;
  commits: PushCommit[];
  totalCommits: number;
}

const titleLine = (m: string) => m.replace(/^\s+/, '').split('\n')[0].trim();

export function pushPayload(c: Container, kind: 'push' | 'tag_push', p: HookProject, user: UserRow, f: PushFacts): object {
  const web = `${c.config.externalUrl}/${p.fullPath}`;
  return {
    object_kind: kind,
    event_name: kind,
    before: f.before,
    after: f.after,
    ref: f.ref,
    ref_protected: f.refProtected,
    checkout_sha: f.checkoutSha,
    message: f.message,
    user_id: user.id,
    user_name: user.name,
    user_username: user.username,
    user_email: user.public_email || '',
    user_avatar: avatarUrl(c, user),
    project_id: p.row.id,
    project: projectObject(c, p),
    commits: f.commits.map((cm) => ({
      id: cm.info.id,
      message: cm.info.message,
      title: titleLine(cm.info.message),
      timestamp: cm.info.authoredDate,
      url: `${web}/-/commit/${cm.info.id}`,
      author: { name: cm.info.authorName, email: cm.info.authorEmail },
      added: cm.added,
      modified: cm.modified,
      removed: cm.removed,
    })),
    total_commits_count: f.totalCommits,
    push_options: {},
    repository: repositoryObject(c, p),
  };
}

export function repositoryUpdatePayload(c: Container, p: HookProject, user: UserRow, changes: { ref: string; before: string; after: string }[]): object {
  return {
    event_name: 'repository_update',
    user_id: user.id,
    user_name: user.name,
    user_email: user.public_email || '',
    user_avatar: avatarUrl(c, user),
    project_id: p.row.id,
    project: projectObject(c, p),
    changes: changes.map((ch) => ({ before: ch.before, after: ch.after, ref: ch.ref })),
    refs: changes.map((ch) => ch.ref),
  };
}

export const hookUser = (c: Container, u: UserRow) => ({
  id: u.id,
  name: u.name,
  username: u.username,
  avatar_url: avatarUrl(c, u),
  email: u.public_email || '',
});

// ---- releases ----

export interface ReleaseFacts {
  release: ReleaseRow;
  links: ReleaseLinkRow[];
  commit: CommitInfo | null;
}

/** The reference's DataBuilder::Release: the release's own fields, its project, assets and commit. */
export function releasePayload(c: Container, p: HookProject, f: ReleaseFacts, action: 'create' | 'update'): object {
  const r = f.release;
  const project = { ...p.row, full_path: p.fullPath };
  const sources = sourceUrls(c, project, r.tag);
  const web = `${c.config.externalUrl}/${p.fullPath}`;
  return {
    id: r.id,
    created_at: ciTime(r.created_at),
    description: r.description,
    name: r.name,
    released_at: ciTime(r.released_at),
    tag: r.tag,
    object_kind: 'release',
    project: projectObject(c, p),
    url: releaseWebUrl(c, project, r.tag),
    action,
    assets: {
      count: f.links.length + sources.length,
      links: f.links.map((l) => ({ id: l.id, external: isExternalLink(c, project, l), link_type: l.link_type, name: l.name, url: l.url })),
      sources,
    },
    commit: f.commit
      ? {
          id: f.commit.id,
          message: f.commit.message,
          title: titleLine(f.commit.message),
          timestamp: f.commit.authoredDate,
          url: `${web}/-/commit/${f.commit.id}`,
          author: { name: f.commit.authorName, email: f.commit.authorEmail },
        }
      : null,
  };
}
