// Badges of projects and groups: list (a project shows its own and its groups' badges), get,
// add, change, remove, preview; and the values their URL placeholders resolve to.
import type { Container } from '../context.js';
import { deleteBadge, findBadgeOf, insertBadge, pageBadges, updateBadge, type BadgeRow } from '../../db/repos/badges.js';
import { findNamespaceById } from '../../db/repos/namespaces.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { latestTagName } from '../../git/ref_files.js';
import { resolveRevision } from '../../git/repository.js';
import type { Actor } from '../auth/actor.js';
import { forbidden, recordNotFound, refused, validation } from '../errors.js';
import { checkUnmodifiedSince } from '../shared/preconditions.js';
import { findGroup } from '../groups/find.js';
import { selfAndAncestorIds } from '../members/policy.js';
import { findProject } from '../projects/find.js';
import { listGroupProjects } from '../projects/service.js';
import { repositoryDir } from '../repository/service.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';
import { canManageGroupBadges, canManageProjectBadges } from './policy.js';
import { renderUrl, urlError, type PlaceholderValues } from './render.js';

export type BadgeSourceType = 'project' | 'group';

export interface BadgeView {
  row: BadgeRow;
  kind: 'project' | 'group';
  rendered_link_url: string;
  rendered_image_url: string;
}

export interface BadgeInput {
  link_url?: string;
  image_url?: string;
  name?: string;
}

interface Source {
  type: BadgeSourceType;
  /** Whose badges show here: the project's own and its groups' (a project), or the group's own. */
  owner: { projectId: number | null; groupIds: number[] };
  canManage: boolean;
  /** The project whose values fill the placeholders: the project itself, or a group's newest visible project. */
  project: () => Promise<ProjectRow | null>;
}

async function findSource(c: Container, actor: Actor | null, type: BadgeSourceType, idOrPath: number | string): Promise<Source> {
  if (type === 'project') {
    const { row, access } = await findProject(c, actor, idOrPath);
    const ns = await findNamespaceById(c.db, row.namespace_id);
    const groupIds = ns && ns.kind === 'group' ? await selfAndAncestorIds(c, ns) : [];
    return { type, owner: { projectId: row.id, groupIds }, canManage: canManageProjectBadges(access), project: async () => row };
  }
  const { row, access } = await findGroup(c, actor, idOrPath);
  return {
    type,
    owner: { projectId: null, groupIds: [row.id] },
    canManage: canManageGroupBadges(access),
    project: async () => {
      const first = await listGroupProjects(c, actor, row.id, { order_by: 'id', sort: 'desc', with_shared: false }, { kind: 'offset', page: 1, perPage: 1 });
      return first.items[0]?.row ?? null;
    },
  };
}

async function managedSource(c: Container, actor: Actor, type: BadgeSourceType, idOrPath: number | string): Promise<Source> {
  const s = await findSource(c, actor, type, idOrPath);
  if (!s.canManage) throw forbidden();
  return s;
}

const mentionsPlaceholder = (urls: string[]): boolean => urls.some((u) => u.includes('%'));

/** What the placeholders of badge URLs stand for in this project (git is asked only when a URL needs it). */
export async function placeholderValues(c: Container, p: ProjectRow): Promise<PlaceholderValues> {
  const ns = await findNamespaceById(c.db, p.namespace_id);
  const dir = repositoryDir(c, p.id);
  return {
    project_path: p.full_path,
    project_title: p.name,
    project_name: p.path,
    project_id: String(p.id),
    project_namespace: p.full_path,
    group_name: ns && ns.kind === 'group' ? ns.full_path : null,
    service_server: new URL(c.config.externalUrl).host,
    default_branch: p.default_branch,
    commit_sha: p.default_branch ? await resolveRevision(dir, p.default_branch).catch(() => null) : null,
    latest_tag: await latestTagName(dir).catch(() => null),
  };
}

async function views(c: Container, s: Source, rows: BadgeRow[]): Promise<BadgeView[]> {
  const project = mentionsPlaceholder(rows.flatMap((r) => [r.link_url, r.image_url])) ? await s.project() : null;
  const values = project ? await placeholderValues(c, project) : null;
  return rows.map((row) => ({
    row,
    kind: row.project_id !== null ? 'project' : 'group',
    rendered_link_url: renderUrl(row.link_url, values),
    rendered_image_url: renderUrl(row.image_url, values),
  }));
}

async function findBadge(c: Container, s: Source, badgeId: number): Promise<BadgeRow> {
  const row = await findBadgeOf(c.db, s.owner, badgeId);
  if (!row) throw recordNotFound();
  return row;
}

/** The model validation of both URLs, in the reference's words. */
function validateUrls(linkUrl: string, imageUrl: string): void {
  const errors: Record<string, string[]> = {};
  const link = urlError(linkUrl);
  const image = urlError(imageUrl);
  if (link) errors.link_url = [link];
  if (image) errors.image_url = [image];
  if (link || image) throw validation(errors);
}

export async function listBadges(
  c: Container,
  actor: Actor | null,
  type: BadgeSourceType,
  idOrPath: number | string,
  name: string | undefined,
  page: PageRequest,
): Promise<PageResult<BadgeView>> {
  const s = await findSource(c, actor, type, idOrPath);
  const result = await pageBadges(c.db, s.owner, name, page);
  return { ...result, items: await views(c, s, result.items) };
}

export async function getBadge(c: Container, actor: Actor | null, type: BadgeSourceType, idOrPath: number | string, badgeId: number): Promise<BadgeView> {
  const s = await findSource(c, actor, type, idOrPath);
  return (await views(c, s, [await findBadge(c, s, badgeId)]))[0];
}

export async function createBadge(
  c: Container,
  actor: Actor,
  type: BadgeSourceType,
  idOrPath: number | string,
  input: Required<Pick<BadgeInput, 'link_url' | 'image_url'>> & BadgeInput,
): Promise<BadgeView> {
  const s = await managedSource(c, actor, type, idOrPath);
  const link = input.link_url.trim();
  const image = input.image_url.trim();
  validateUrls(link, image);
  const now = nowIso();
  const row = await insertBadge(c.db, {
    project_id: s.owner.projectId,
    group_id: s.owner.projectId === null ? s.owner.groupIds[0] : null,
    name: input.name ?? null,
    link_url: link,
    image_url: image,
    created_at: now,
    updated_at: now,
  });
  return (await views(c, s, [row]))[0];
}

/** A group's badge seen from one of its projects is changed or removed only through the group. */
function ownBadge(s: Source, row: BadgeRow, action: 'update' | 'delete'): void {
  if (s.type === 'project' && row.project_id === null) throw refused(`To ${action} a Group badge please use the Group endpoint`);
}

export async function changeBadge(c: Container, actor: Actor, type: BadgeSourceType, idOrPath: number | string, badgeId: number, input: BadgeInput): Promise<BadgeView> {
  const s = await managedSource(c, actor, type, idOrPath);
  const row = await findBadge(c, s, badgeId);
  ownBadge(s, row, 'update');
  const link = input.link_url?.trim() ?? row.link_url;
  const image = input.image_url?.trim() ?? row.image_url;
  validateUrls(link, image);
  const updated = await updateBadge(c.db, row.id, {
    link_url: link,
    image_url: image,
    ...(input.name !== undefined ? { name: input.name } : {}),
    updated_at: nowIso(),
  });
  return (await views(c, s, [updated]))[0];
}

export async function removeBadge(
  c: Container,
  actor: Actor,
  type: BadgeSourceType,
  idOrPath: number | string,
  badgeId: number,
  ifUnmodifiedSince: Date | null = null,
): Promise<void> {
  const s = await managedSource(c, actor, type, idOrPath);
  const row = await findBadge(c, s, badgeId);
  ownBadge(s, row, 'delete');
  checkUnmodifiedSince(row.updated_at, ifUnmodifiedSince);
  await deleteBadge(c.db, row.id);
}

export interface RenderedBadge {
  link_url: string;
  image_url: string;
  rendered_link_url: string;
  rendered_image_url: string;
}

/** GET …/badges/render: a preview of URLs with their placeholders resolved (managers only). */
export async function previewBadge(c: Container, actor: Actor, type: BadgeSourceType, idOrPath: number | string, linkUrl: string, imageUrl: string): Promise<RenderedBadge> {
  const s = await managedSource(c, actor, type, idOrPath);
  const link = linkUrl.trim();
  const image = imageUrl.trim();
  validateUrls(link, image);
  const project = await s.project();
  const values = project ? await placeholderValues(c, project) : null;
  return { link_url: link, image_url: image, rendered_link_url: renderUrl(link, values), rendered_image_url: renderUrl(image, values) };
}
