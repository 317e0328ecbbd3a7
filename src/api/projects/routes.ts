import { Type as T } from '@sinclair/typebox';
import {
  createProject,
  getProject,
  listGroupProjects, listGroupSharedProjects,
  listProjects,
  listUserProjects,
  transferProject,
  type ListProjectsInput,
} from '../../domain/projects/service.js';
import { updateProjectWithAvatar } from '../../domain/projects/avatar.js';
import { deleteProject } from '../../domain/projects/lifecycle.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { IdOrPath } from '../schemas.js';
import { presentProject } from './present.js';
import { fileParam } from './uploads_routes.js';
import { projectListRoute } from './list_route.js';
import { ALL_PROJECTS_PARAMS, CreateProjectParams, keysetById, ProjectAny, USER_PROJECTS_PARAMS, ProjectFull, UPDATE_FIELDS, UpdateProjectParams } from './schemas.js';

const TAG = 'projects';

export const projectRoutes = [
  route({
    method: 'GET',
    path: '/projects',
    tag: TAG,
    summary: 'Projects visible to the caller',
    auth: 'optional',
    params: T.Object(ALL_PROJECTS_PARAMS),
    response: ProjectAny,
    paginated: true,
    keyset: keysetById,
    handler: async ({ c, actor, input, page }) =>
      mapPage(await listProjects(c, actor, input as ListProjectsInput, page), (v) => presentProject(c, v)),
  }),
  route({
    method: 'POST',
    path: '/projects',
    tag: TAG,
    summary: 'Create a project',
    params: CreateProjectParams,
    paramRules: { atLeastOneOf: [['name', 'path']] },
    response: ProjectFull,
    handler: async ({ c, actor, input }) => presentProject(c, await createProject(c, actor, input)),
  }),
  route({
    method: 'POST',
    path: '/projects/user/:user_id',
    admin: true,
    tag: TAG,
    summary: 'Create a project for a user (admin)',
    params: T.Object({ ...CreateProjectParams.properties, user_id: T.Integer(), name: T.String() }),
    response: ProjectFull,
    handler: async ({ c, actor, input }) => {
      const { user_id, ...rest } = input;
      return presentProject(c, await createProject(c, actor, rest, user_id));
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id',
    tag: TAG,
    summary: 'One project',
    auth: 'optional',
    params: T.Object({
      id: IdOrPath,
      statistics: T.Optional(T.Boolean({ default: false })),
      license: T.Optional(T.Boolean({ default: false })),
      with_custom_attributes: T.Optional(T.Boolean()),
    }),
    response: ProjectAny,
    handler: async ({ c, actor, input }) =>
      presentProject(c, await getProject(c, actor, input.id, { statistics: !!input.statistics, license: !!input.license, withCustomAttributes: input.with_custom_attributes })),
  }),
  route({
    method: 'PUT',
    path: '/projects/:id',
    tag: TAG,
    summary: 'Edit a project',
    params: UpdateProjectParams,
    paramRules: { atLeastOneOf: [UPDATE_FIELDS] },
    response: ProjectFull,
    handler: async ({ c, actor, input }) => {
      const { id, avatar, ...rest } = input;
      return presentProject(c, await updateProjectWithAvatar(c, actor, id, rest, fileParam('avatar', avatar)));
    },
  }),
  route({
    method: 'PUT',
    path: '/projects/:id/transfer',
    tag: TAG,
    summary: 'Move a project to another namespace',
    params: T.Object({ id: IdOrPath, namespace: IdOrPath }),
    response: ProjectFull,
    handler: async ({ c, actor, input }) => presentProject(c, await transferProject(c, actor, input.id, input.namespace)),
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id',
    tag: TAG,
    summary: 'Delete a project',
    params: T.Object({ id: IdOrPath }),
    response: T.Object({ message: T.String() }),
    status: 202,
    handler: async ({ c, actor, input, ifUnmodifiedSince }) => {
      await deleteProject(c, actor, input.id, ifUnmodifiedSince);
      return { message: '202 Accepted' };
    },
  }),
  route({
    method: 'GET',
    path: '/users/:user_id/projects',
    tag: TAG,
    summary: "Projects in a user's personal namespace",
    auth: 'optional',
    params: T.Object(USER_PROJECTS_PARAMS),
    response: ProjectAny,
    paginated: true,
    keyset: keysetById,
    handler: async ({ c, actor, input, page }) => {
      const { user_id, ...rest } = input;
      return mapPage(await listUserProjects(c, actor, user_id, rest as ListProjectsInput, page), (v) => presentProject(c, v));
    },
  }),
  projectListRoute('/groups/:id/projects', 'Projects in a group', listGroupProjects, {
    include_subgroups: T.Optional(T.Boolean()),
    with_shared: T.Optional(T.Boolean({ default: true })),
    with_security_reports: T.Optional(T.Boolean()),
  }),
  projectListRoute('/groups/:id/projects/shared', 'Projects shared with a group', listGroupSharedProjects),
];
