// Finding a project the actor may see. Small on purpose: every area that names a project imports
// this, not the projects service.
import type { Container } from '../context.js';
import { findNamespaceByFullPath } from '../../db/repos/namespaces.js';
import { findProjectByAlias } from '../../db/repos/project_aliases.js';
import { findProjectByFullPath, findProjectById, findProjectByRedirect, type ProjectRow } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { forbidden, notFound } from '../errors.js';
import { canReadProject, projectAccess, type ProjectAccess } from './policy.js';

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
}

/** A project by id, full path (old paths redirect) or alias that the actor may see; else 404 Project Not Found. */
export async function findProject(c: Container, actor: Actor | null, idOrPath: number | string): Promise<FoundProject> {
  const row = await findProjectRow(c, idOrPath);
  const access = await projectAccess(c, actor, row);
  if (!canReadProject(access)) throw projectNotFound();
  return { row, access };
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
