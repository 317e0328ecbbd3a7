// Archive, unarchive, restore (after a delayed deletion) and languages. DELETE /projects/:id is in routes.ts.
import { Type as T } from '@sinclair/typebox';
import { projectLanguages, restoreProject, setProjectArchived } from '../../domain/projects/lifecycle.js';
import { route } from '../../http/route.js';
import { IdOrPath } from '../schemas.js';
import { presentProject } from './present.js';
import { ProjectFull } from './schemas.js';

const TAG = 'projects';

export const projectLifecycleRoutes = [
  route({
    method: 'POST',
    path: '/projects/:id/archive',
    tag: TAG,
    summary: 'Archive a project (owners and admins)',
    params: T.Object({ id: IdOrPath }),
    response: ProjectFull,
    handler: async ({ c, actor, input }) => presentProject(c, await setProjectArchived(c, actor, input.id, true)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/unarchive',
    tag: TAG,
    summary: 'Unarchive a project (owners and admins)',
    params: T.Object({ id: IdOrPath }),
    response: ProjectFull,
    handler: async ({ c, actor, input }) => presentProject(c, await setProjectArchived(c, actor, input.id, false)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/restore',
    tag: TAG,
    summary: 'Restore a project marked for deletion',
    params: T.Object({ id: IdOrPath }),
    response: ProjectFull,
    handler: async ({ c, actor, input }) => presentProject(c, await restoreProject(c, actor, input.id)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/languages',
    tag: TAG,
    summary: 'Languages of the default branch, by share of files',
    auth: 'optional',
    params: T.Object({ id: IdOrPath }),
    response: T.Record(T.String(), T.Number()),
    handler: async ({ c, actor, input }) => projectLanguages(c, actor, input.id),
  }),
];
