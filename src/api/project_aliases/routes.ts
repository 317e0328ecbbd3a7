// Project aliases [admin]: list, show, create, delete.
import { Type as T, type Static } from '@sinclair/typebox';
import type { ProjectAliasRow } from '../../db/repos/project_aliases.js';
import { createProjectAlias, deleteProjectAliasNamed, getProjectAlias, listProjectAliases } from '../../domain/projects/aliases.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { IdOrPath } from '../schemas.js';

const TAG = 'project_aliases';

/** The reference's ProjectAlias entity. */
export const ProjectAlias = T.Object({ id: T.Integer(), project_id: T.Integer(), name: T.String() });

const present = (a: ProjectAliasRow): Static<typeof ProjectAlias> => ({ id: a.id, project_id: a.project_id, name: a.name });
const NameParam = { name: T.String() };

export const projectAliasRoutes = [
  route({
    method: 'GET',
    path: '/project_aliases',
    admin: true,
    tag: TAG,
    summary: 'Project aliases (admin)',
    paginated: true,
    response: ProjectAlias,
    handler: async ({ c, actor, page }) => mapPage(await listProjectAliases(c, actor, page), present),
  }),
  route({
    method: 'GET',
    path: '/project_aliases/:name',
    admin: true,
    tag: TAG,
    summary: 'One project alias (admin)',
    params: T.Object(NameParam),
    response: ProjectAlias,
    handler: async ({ c, actor, input }) => present(await getProjectAlias(c, actor, input.name)),
  }),
  route({
    method: 'POST',
    path: '/project_aliases',
    admin: true,
    tag: TAG,
    summary: 'Add a project alias (admin)',
    params: T.Object({ project_id: IdOrPath, ...NameParam }),
    response: ProjectAlias,
    handler: async ({ c, actor, input }) => present(await createProjectAlias(c, actor, input)),
  }),
  route({
    method: 'DELETE',
    path: '/project_aliases/:name',
    admin: true,
    tag: TAG,
    summary: 'Delete a project alias (admin)',
    params: T.Object(NameParam),
    status: 204,
    handler: async ({ c, actor, input }) => deleteProjectAliasNamed(c, actor, input.name),
  }),
];
