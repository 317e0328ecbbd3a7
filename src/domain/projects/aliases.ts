// Project aliases [admin]: another name for a project, used by `GET /projects/:id` and by git
// URLs (`{external_url}/<alias>.git`) with the project's own access rules. An alias is one path
// segment that no namespace or project path holds already; it goes with its project (cascade).
import type { Container } from '../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { findNamespaceByFullPath } from '../../db/repos/namespaces.js';
import {
  deleteProjectAlias, findProjectAlias, insertProjectAlias, pageProjectAliases, type ProjectAliasRow,
} from '../../db/repos/project_aliases.js';
import { findProjectByFullPath } from '../../db/repos/projects.js';
import { requireAdmin, type Actor } from '../auth/actor.js';
import { recordNotFound, validation } from '../errors.js';
import { pathErrors } from '../groups/validation.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';
import { findProject } from './find.js';

export async function listProjectAliases(c: Container, actor: Actor | null, page: PageRequest): Promise<PageResult<ProjectAliasRow>> {
  requireAdmin(actor);
  return pageProjectAliases(c.db, page);
}

async function aliasNamed(c: Container, name: string): Promise<ProjectAliasRow> {
  const alias = await findProjectAlias(c.db, name);
  if (!alias) throw recordNotFound();
  return alias;
}

export async function getProjectAlias(c: Container, actor: Actor | null, name: string): Promise<ProjectAliasRow> {
  requireAdmin(actor);
  return aliasNamed(c, name);
}

const TAKEN = () => validation({ name: ['has already been taken'] });

export async function createProjectAlias(c: Container, actor: Actor | null, input: { project_id: number | string; name: string }): Promise<ProjectAliasRow> {
  const admin = requireAdmin(actor);
  const { row: project } = await findProject(c, admin, input.project_id);
  const errors = pathErrors(input.name, true);
  if (errors.length) throw validation({ name: errors });
  if ((await findProjectAlias(c.db, input.name)) || (await findNamespaceByFullPath(c.db, input.name)) || (await findProjectByFullPath(c.db, input.name))) {
    throw TAKEN();
  }
  const now = nowIso();
  try {
    return await insertProjectAlias(c.db, { project_id: project.id, name: input.name, name_lower: input.name.toLowerCase(), created_at: now, updated_at: now });
  } catch (err) {
    if (isUniqueViolation(err)) throw TAKEN();
    throw err;
  }
}

export async function deleteProjectAliasNamed(c: Container, actor: Actor | null, name: string): Promise<void> {
  requireAdmin(actor);
  const alias = await aliasNamed(c, name);
  await deleteProjectAlias(c.db, alias.id);
}
