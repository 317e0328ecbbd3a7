// Finding a project the actor may see. Small on purpose: every area that names a project imports
// this, not the projects service.
import type { Container } from '../context.js';
import { findNamespaceByFullPath } from '../../db/repos/namespaces.js';
import { findProjectByAlias } from '../../db/repos/project_aliases.js';
import { findProjectWithContext, type ProjectContext } from '../../db/repos/project_context.js';
import { findProjectByFullPath, findProjectById, findProjectByRedirect, type ProjectRow } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { forbidden, notFound } from '../errors.js';
import { ACCESS } from '../members/policy.js';
import { today } from '../shared/time.js';
import { accessFor, canReadProject, roleFromContext, type ProjectAccess } from './policy.js';
import { liveLinksOfProjects, sharedAccessLevels } from './shared_access.js';

export const projectNotFound = () => notFound('Project');

/** `group/sub/project` → the project in that namespace, whatever the stored full path says. */
async function findByPath(c: Container, fullPath: string): Promise<ProjectRow | undefined> {
  const cut = fullPath.lastIndexOf('/');
  if (cut > 0) {
    const ns = await findNamespaceByFullPath(c.db, fullPath.slice(0, cut));
    if (ns) {
      const p = await findProjectByFullPath(c.db, `${ns.full_path}/${fullPath.slice(cut + 1)}`);
      if (p && p.namespace_id === ns.id) return p;
    }
  }
  return (
    (await findProjectByFullPath(c.db, fullPath)) ??
    (await findProjectByRedirect(c.db, fullPath)) ??
    // An alias is one segment; a project's own path never is.
    (cut < 0 ? await findProjectByAlias(c.db, fullPath) : undefined)
  );
}

export interface FoundProject {
  row: ProjectRow;
  access: ProjectAccess;
  /** What was read with the row: namespace, owner, topics, the caller's memberships. */
  context: ProjectContext;
}

/** A project by id, full path (old paths redirect) or alias with the actor's access to it, whether or not they may see it; else 404. */
export async function findProjectWithAccess(c: Container, actor: Actor | null, idOrPath: number | string): Promise<FoundProject> {
  const s = String(idOrPath);
  // By id: one joined read. By path: the path's rules find the row, then the same read by its id.
  const id = /^\d+$/.test(s) ? Number(s) : (await findByPath(c, s))?.id;
  const found = id === undefined ? undefined : await findProjectWithContext(c.db, id, actor?.user.id ?? null, today());
  if (!found) throw projectNotFound();
  const { row, context } = found;
  let shared: number = ACCESS.NONE;
  if (actor && context.live_links > 0) shared = (await sharedAccessLevels(c, actor.user.id, await liveLinksOfProjects(c, [row.id]))).get(row.id) ?? ACCESS.NONE;
  const access = accessFor(actor, row, actor ? roleFromContext(actor.user.id, context, shared) : ACCESS.NONE);
  return { row, context, access };
}

/** A project by id, full path (old paths redirect) or alias that the actor may see; else 404 Project Not Found. */
export async function findProject(c: Container, actor: Actor | null, idOrPath: number | string): Promise<FoundProject> {
  const found = await findProjectWithAccess(c, actor, idOrPath);
  if (!canReadProject(found.access)) throw projectNotFound();
  return found;
}

/** A project by id, full path (old paths redirect) or alias, whoever asks; else 404. Check access before answering with it. */
export async function findProjectRow(c: Container, idOrPath: number | string): Promise<ProjectRow> {
  const s = String(idOrPath);
  const row = /^\d+$/.test(s) ? await findProjectById(c.db, Number(s)) : await findByPath(c, s);
  if (!row) throw projectNotFound();
  return row;
}

/** A project the actor may see (else 404) and act on as `allowed` says (else 403). */
export async function findProjectAllowed(c: Container, actor: Actor | null, idOrPath: number | string, allowed: (a: ProjectAccess) => boolean): Promise<ProjectRow> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!allowed(access)) throw forbidden();
  return row;
}
