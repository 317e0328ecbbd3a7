// Stars: star and unstar (304 when nothing changes), starrers, and the projects a user starred.
import { Type as T } from '@sinclair/typebox';
import type { ListProjectsInput } from '../../domain/projects/service.js';
import { listStarredProjects, listStarrers, starProject, unstarProject } from '../../domain/projects/stars.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { IdOrPath } from '../schemas.js';
import { presentProject } from './present.js';
import { keysetById, LIST_PARAMS, ProjectAny, ProjectFull } from './schemas.js';
import { presentStarrer } from './stars_present.js';
import { Starrer } from './stars_schemas.js';

const TAG = 'projects';

export const projectStarRoutes = [
  route({
    method: 'POST',
    path: '/projects/:id/star',
    tag: TAG,
    summary: 'Star a project (304 when already starred)',
    params: T.Object({ id: IdOrPath }),
    response: ProjectFull,
    handler: async ({ c, actor, input }) => presentProject(c, await starProject(c, actor, input.id)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/unstar',
    tag: TAG,
    summary: 'Unstar a project (304 when not starred)',
    params: T.Object({ id: IdOrPath }),
    response: ProjectFull,
    handler: async ({ c, actor, input }) => presentProject(c, await unstarProject(c, actor, input.id)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/starrers',
    tag: TAG,
    summary: 'Users who starred a project',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, search: T.Optional(T.String()) }),
    response: Starrer,
    paginated: true,
    handler: async ({ c, actor, input, page }) => mapPage(await listStarrers(c, actor, input.id, input.search, page), (s) => presentStarrer(c, s)),
  }),
  route({
    method: 'GET',
    path: '/users/:user_id/starred_projects',
    tag: TAG,
    summary: 'Projects a user starred',
    auth: 'optional',
    params: T.Object({ user_id: T.String(), ...LIST_PARAMS }),
    response: ProjectAny,
    paginated: true,
    keyset: keysetById,
    handler: async ({ c, actor, input, page }) => {
      const { user_id, ...rest } = input;
      return mapPage(await listStarredProjects(c, actor, user_id, rest as ListProjectsInput, page), (v) => presentProject(c, v));
    },
  }),
];
