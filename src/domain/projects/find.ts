// Finding a project the actor may see. Small on purpose: every area that names a project imports
// this, not the projects service.
import type { Container } from '../context.js';
import { findProjectByAlias } from '../../db/repos/project_aliases.js';
import { findProjectWithContext, type ProjectContext, type ProjectWithContext } from '../../db/repos/project_context.js';
import { findProjectByFullPath, findProjectById, findProjectByRedirect, type ProjectRow } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { forbidden, notFound } from '../errors.js';
import { ACCESS } from '../members/policy.js';
import { today } from '../../shared/time.js';
import { accessFor, canReadProject, roleFromContext, type ProjectAccess } from './policy.js';
import { liveLinksOfProjects, sharedAccessLevels } from './shared_access.js';

export const projectNotFound = () => notFound('Project');

/**
 * A project by a path that is not its own: an old one (renamed or transferred) or an alias. Its
 * own full path is read with the project itself (findProjectWithContext): full paths are kept
 * exact when a namespace or user is renamed.
 */
async function findByOtherPath(c: Container, fullPath: string): Promise<ProjectRow | undefined> {
  return (
    (await findProjectByRedirect(c.db, fullPath)) ??
    // An alias is one segment; a project's own path never is.
    (fullPath.includes('/') ? undefined : await findProjectByAlias(c.db, fullPath))
  );
}

export interface FoundProject {
  row: ProjectRow;
  access: ProjectAccess;
  /** What was read with the row: namespace, owner, topics, the caller's memberships. */
  context: ProjectContext;
}

/**
 * A project by id, full path (old paths redirect) or alias with the actor's access to it, whether
 * or not they may see it; else 404. `recent`: a read of the last half second may answer (for a
 * plain read of the project; never before a change).
 */
export async function findProjectWithAccess(c: Container, actor: Actor | null, idOrPath: number | string, opts: { recent?: boolean } = {}): Promise<FoundProject> {
  const s = String(idOrPath);
  // One joined read by id or by full path; an old path or an alias first finds the id.
  const userId = actor?.user.id ?? null;
  const byId = /^\d+$/.test(s);
  const key = byId ? { id: Number(s) } : { fullPath: s };
  const day = today();
  const read = () => findProjectWithContext(c.db, key, userId, day);
  let found = opts.recent ? await c.projectReads.read(`${userId} ${day} ${byId ? s : s.toLowerCase()}`, async () => frozen(await read())) : await read();
  if (!found && !byId) {
    const other = await findByOtherPath(c, s);
    if (other) found = await findProjectWithContext(c.db, { id: other.id }, userId, today());
  }
  if (!found) throw projectNotFound();
  const { row, context } = found;
  let shared: number = ACCESS.NONE;
  if (actor && context.live_links > 0) shared = (await sharedAccessLevels(c, actor.user.id, await liveLinksOfProjects(c, [row.id]))).get(row.id) ?? ACCESS.NONE;
  const access = accessFor(actor, row, actor ? roleFromContext(actor.user.id, context, shared) : ACCESS.NONE);
  return { row, context, access };
}

/** A kept read is shared by the requests that follow: nothing may change it. */
function frozen(found: ProjectWithContext | undefined): ProjectWithContext | undefined {
  if (found) {
    Object.freeze(found.row);
    Object.freeze(found.context);
  }
  return found;
}

/** A project by id, full path (old paths redirect) or alias that the actor may see; else 404 Project Not Found. */
export async function findProject(c: Container, actor: Actor | null, idOrPath: number | string, opts: { recent?: boolean } = {}): Promise<FoundProject> {
  const found = await findProjectWithAccess(c, actor, idOrPath, opts);
  if (!canReadProject(found.access)) throw projectNotFound();
  return found;
}

/** A project by id, full path (old paths redirect) or alias, whoever asks; else 404. Check access before answering with it. */
export async function findProjectRow(c: Container, idOrPath: number | string): Promise<ProjectRow> {
  const s = String(idOrPath);
  const row = /^\d+$/.test(s) ? await findProjectById(c.db, Number(s)) : ((await findProjectByFullPath(c.db, s)) ?? (await findByOtherPath(c, s)));
  if (!row) throw projectNotFound();
  return row;
}

/** A project the actor may see (else 404) and act on as `allowed` says (else 403). */
export async function findProjectAllowed(c: Container, actor: Actor | null, idOrPath: number | string, allowed: (a: ProjectAccess) => boolean): Promise<ProjectRow> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!allowed(access)) throw forbidden();
  return row;
}
