// Stars: star/unstar a project, its starrers, and the projects a user starred.
import type { Container } from '../context.js';
import { findProjectById } from '../../db/repos/projects.js';
import { addStar, pageStarrers, removeStar, type StarrerRow } from '../../db/repos/project_stars.js';
import { isAdmin, type Actor } from '../auth/actor.js';
import { notFound, notModified } from '../errors.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';
import { listWith, profileOwner, view, type ListProjectsInput, type ProjectView } from './service.js';
import { findProject } from './find.js';

/** The project as it is now (its counts just changed), in the full form. */
async function fresh(c: Container, actor: Actor, id: number): Promise<ProjectView> {
  const row = await findProjectById(c.db, id);
  if (!row) throw notFound('Project');
  return view(c, actor, row, { full: true });
}

/** POST /projects/:id/star: 304 (nothing changes) when the caller had starred it already. */
export async function starProject(c: Container, actor: Actor, idOrPath: number | string): Promise<ProjectView> {
  const { row } = await findProject(c, actor, idOrPath);
  if (!(await addStar(c.db, actor.user.id, row.id, nowIso()))) throw notModified();
  return fresh(c, actor, row.id);
}

/** POST /projects/:id/unstar: 304 when the caller had not starred it. */
export async function unstarProject(c: Container, actor: Actor, idOrPath: number | string): Promise<ProjectView> {
  const { row } = await findProject(c, actor, idOrPath);
  if (!(await removeStar(c.db, actor.user.id, row.id))) throw notModified();
  return fresh(c, actor, row.id);
}

export type Starrer = StarrerRow;

/**
 * GET /projects/:id/starrers: newest star first. Users with a private profile are left out except
 * for themselves and admins; `search` matches as the reference's user search does (part of the
 * name or username, or the whole public email; a leading `@` is ignored) and ranks exact matches first.
 */
export async function listStarrers(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  search: string | undefined,
  page: PageRequest,
): Promise<PageResult<Starrer>> {
  const { row } = await findProject(c, actor, idOrPath);
  let term: string | undefined;
  if (search !== undefined && search.trim() !== '') {
    term = search.trim().replace(/^@/, '').toLowerCase();
    // The reference's user search finds nobody for a blank query.
    if (term === '') return { items: [], total: 0, hasNext: false };
  }
  const visibleTo = isAdmin(actor) ? ({ all: true } as const) : ({ all: false, userId: actor?.user.id ?? null } as const);
  return pageStarrers(c.db, { projectId: row.id, search: term, visibleTo }, page);
}

/**
 * GET /users/:user_id/starred_projects: the projects that user starred, among those the caller
 * may see, with the project list's filters. A private profile shows nothing to others.
 */
export async function listStarredProjects(
  c: Container,
  actor: Actor | null,
  userIdOrName: string,
  input: ListProjectsInput,
  page: PageRequest,
): Promise<PageResult<ProjectView>> {
  const { user, hidden } = await profileOwner(c, actor, userIdOrName);
  return listWith(c, actor, input, page, { starredBy: [user.id], none: hidden || undefined });
}
