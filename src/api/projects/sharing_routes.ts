// Sharing a project with groups, and importing another project's members.
import { Type as T } from '@sinclair/typebox';
import { importProjectMembers } from '../../domain/projects/import_members.js';
import { shareProject, unshareProject } from '../../domain/projects/sharing.js';
import { route } from '../../http/route.js';
import { presentGroupLink } from './resources_present.js';
import { ProjectGroupLink, ProjectIdParam, ShareParams } from './resources_schemas.js';

const TAG = 'projects';

export const projectSharingRoutes = [
  route({
    method: 'POST',
    path: '/projects/:id/share',
    tag: TAG,
    summary: 'Share a project with a group',
    params: T.Object(ShareParams),
    response: ProjectGroupLink,
    handler: async ({ c, actor, input }) => presentGroupLink(await shareProject(c, actor, input.id, input)),
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/share/:group_id',
    tag: TAG,
    summary: 'Stop sharing a project with a group',
    params: T.Object({ ...ProjectIdParam, group_id: T.Integer() }),
    status: 204,
    handler: async ({ c, actor, input }) => unshareProject(c, actor, input.id, input.group_id),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/import_project_members/:project_id',
    tag: TAG,
    summary: "Copy another project's members into this one",
    params: T.Object({ ...ProjectIdParam, project_id: T.Integer() }),
    response: T.Object({ status: T.String() }),
    status: 200,
    handler: async ({ c, actor, input }) => importProjectMembers(c, actor, input.id, input.project_id),
  }),
];
