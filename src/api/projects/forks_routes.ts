// Forks: fork a project, list its forks, and create or remove a fork relation.
import { Type as T } from '@sinclair/typebox';
import { createForkRelation, forkProject, listForks, removeForkRelation } from '../../domain/projects/forks.js';
import { route } from '../../http/route.js';
import { IdOrPath, OneOf } from '../schemas.js';
import { presentProject } from './present.js';
import { projectListRoute } from './list_route.js';
import { ProjectFull } from './schemas.js';

const TAG = 'projects';

export const projectForkRoutes = [
  route({
    method: 'POST',
    path: '/projects/:id/fork',
    tag: TAG,
    summary: 'Fork a project into a namespace (default: the caller’s)',
    params: T.Object({
      id: IdOrPath,
      namespace: T.Optional(T.String()),
      namespace_id: T.Optional(T.Integer()),
      namespace_path: T.Optional(T.String()),
      path: T.Optional(T.String()),
      name: T.Optional(T.String()),
      description: T.Optional(T.String()),
      visibility: T.Optional(OneOf(['private', 'internal', 'public'] as const)),
    }),
    response: ProjectFull,
    handler: async ({ c, actor, input }) => {
      const { id, ...rest } = input;
      return presentProject(c, await forkProject(c, actor, id, rest));
    },
  }),
  projectListRoute('/projects/:id/forks', 'Forks of a project', listForks),
  route({
    method: 'POST',
    path: '/projects/:id/fork/:forked_from_id',
    tag: TAG,
    summary: 'Mark a project as a fork of another',
    params: T.Object({ id: IdOrPath, forked_from_id: T.String() }),
    response: ProjectFull,
    handler: async ({ c, actor, input }) => presentProject(c, await createForkRelation(c, actor, input.id, input.forked_from_id)),
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/fork',
    tag: TAG,
    summary: 'Remove the fork relation (304 when the project is not a fork)',
    params: T.Object({ id: IdOrPath }),
    status: 204,
    handler: async ({ c, actor, input, ifUnmodifiedSince }) => removeForkRelation(c, actor, input.id, ifUnmodifiedSince),
  }),
];
